// The outbound guard's classification of addresses and registered URLs, on the addresses alone: nothing here
// opens a connection, to these addresses or any other.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { InvalidInput } from '../../src/domain/errors.js'
import { classifyAddress, isLoopbackName } from '../../src/webhooks/address-policy.js'
import { checkDestination } from '../../src/webhooks/destination.js'

describe('classifyAddress', () => {
  const cases: [string, string][] = [
    // loopback
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['2002:7f00:1::', 'loopback'],
    ['::ffff:0:7f00:1', 'loopback'], // IPv4-translated (RFC 2765)
    ['::ffff:0:127.0.0.1', 'loopback'],
    ['64:ff9b::127.0.0.1', 'loopback'],
    ['::ffff:0:a9fe:a9fe', 'link-local'],
    ['::ffff:0:a00:1', 'private'],
    // unspecified
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    ['::ffff:0.0.0.0', 'unspecified'],
    // RFC 1918 and unique local
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['fc00::1', 'private'],
    ['fd12:3456:789a::1', 'private'],
    ['fd00:ec2::254', 'private'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:192.168.0.1', 'private'],
    ['fec0::1', 'private'],
    ['64:ff9b:1::1', 'private'],
    ['64:ff9b:1::808:808', 'private'], // local-use NAT64: refused whatever it embeds
    // link-local, cloud metadata among them
    ['169.254.169.254', 'link-local'],
    ['169.254.0.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf::1', 'link-local'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['64:ff9b::a9fe:a9fe', 'link-local'],
    // carrier-grade NAT
    ['100.64.0.1', 'shared'],
    ['100.127.255.254', 'shared'],
    ['::ffff:100.100.100.200', 'shared'],
    // multicast and broadcast
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['ff02::1', 'multicast'],
    ['ff05::1:3', 'multicast'],
    ['255.255.255.255', 'reserved'],
    // reserved and documentation
    ['240.0.0.1', 'reserved'],
    ['192.0.2.10', 'reserved'],
    ['198.51.100.7', 'reserved'],
    ['203.0.113.1', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['192.0.0.8', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['2001::1', 'reserved'],
    ['100::1', 'reserved'],
    ['::1.2.3.4', 'reserved'],
    ['3fff::1', 'reserved'],
    ['3fff:fff:ffff::1', 'reserved'],
    ['5f00::1', 'reserved'],
    // public: the neighbours of every refused range
    ['8.8.8.8', 'public'],
    ['1.1.1.1', 'public'],
    ['9.255.255.255', 'public'],
    ['11.0.0.0', 'public'],
    ['100.63.255.255', 'public'],
    ['100.128.0.0', 'public'],
    ['126.255.255.255', 'public'],
    ['128.0.0.0', 'public'],
    ['169.253.255.255', 'public'],
    ['169.255.0.0', 'public'],
    ['172.15.255.255', 'public'],
    ['172.32.0.0', 'public'],
    ['192.167.255.255', 'public'],
    ['192.169.0.0', 'public'],
    ['223.255.255.255', 'public'],
    ['93.184.215.14', 'public'],
    ['2606:4700:4700::1111', 'public'],
    ['2a00:1450:4001:82b::200e', 'public'],
    ['::ffff:8.8.8.8', 'public'],
    ['64:ff9b::808:808', 'public'],
    ['2002:808:808::1', 'public'],
    ['fbff:ffff::1', 'public'],
    ['fe00::1', 'public'],
    ['::ffff:0:808:808', 'public'],
    ['::fffe:0:7f00:1', 'public'], // the translated range's neighbour
    ['3fff:1000::1', 'public'],
    ['5eff:ffff::1', 'public'],
    ['5f01::1', 'public'],
  ]
  for (const [address, kind] of cases) {
    it(`${address} is ${kind}`, () => assert.equal(classifyAddress(address), kind))
  }

  it('refuses to classify what is not an IP address', () => {
    assert.throws(() => classifyAddress('localhost'), /is not an IP address/)
    assert.throws(() => classifyAddress('256.1.1.1'), /is not an IP address/)
  })

  it('knows localhost and its subdomains as loopback names (RFC 6761), nothing else', () => {
    for (const name of [
      'localhost',
      'LOCALHOST',
      'localhost.',
      'localhost..',
      'api.localhost..',
      'api.localhost',
      'a.b.localhost',
    ])
      assert.equal(isLoopbackName(name), true, name)
    for (const name of ['localhost.example.com', 'notlocalhost', 'example.com'])
      assert.equal(isLoopbackName(name), false, name)
  })
})

describe('checkDestination', () => {
  function refusal(url: string): { problem: string; message: string } {
    try {
      checkDestination(url, false)
    } catch (error) {
      assert.ok(error instanceof InvalidInput)
      assert.equal(error.field, 'url')
      return { problem: error.problem, message: error.message }
    }
    assert.fail(`${url} was accepted`)
  }

  it('refuses URLs naming a non-public address, in every spelling the URL parser reads as one', () => {
    const refused: [string, string][] = [
      ['http://127.0.0.1/', 'is a loopback address'],
      ['http://[::1]:8080/hook', 'is a loopback address'],
      ['http://localhost:3000/', 'is a loopback address'],
      ['https://api.localhost/', 'is a loopback address'],
      ['http://2130706433/', 'is a loopback address'],
      ['http://0x7f.1/', 'is a loopback address'],
      ['http://127.1/', 'is a loopback address'],
      ['http://[::ffff:127.0.0.1]/', 'is a loopback address'],
      ['http://0.0.0.0/', 'is an unspecified address'],
      ['http://10.0.0.5/', 'is a private network address'],
      ['http://[fd00::1]/', 'is a private network address'],
      ['http://169.254.169.254/latest/meta-data/', 'is a link-local address (where cloud metadata services answer)'],
      ['http://[fe80::1]/', 'is a link-local address (where cloud metadata services answer)'],
      ['http://100.64.1.1/', 'is a shared (carrier-grade NAT) address'],
      ['http://224.0.0.1/', 'is a multicast address'],
      ['http://[::ffff:0:7f00:1]/', 'is a loopback address'],
      ['http://[::ffff:0:a9fe:a9fe]/', 'is a link-local address (where cloud metadata services answer)'],
      ['http://[64:ff9b::7f00:1]/', 'is a loopback address'],
      ['http://[64:ff9b:1::808:808]/', 'is a private network address'],
      ['http://[3fff::1]/', 'is a reserved or documentation address'],
    ]
    for (const [url, problem] of refused) assert.equal(refusal(url).problem, problem, url)
    assert.equal(
      refusal('http://2130706433/').message,
      'Invalid request: url points at 127.0.0.1, a loopback address; webhooks are delivered only to public addresses ' +
        'unless the service runs with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true (for a receiver on a local network).',
    )
  })

  it('refuses other schemes, credentials, fragments and what is not a URL', () => {
    assert.deepEqual(refusal('ftp://example.com/'), {
      problem: 'must be http or https',
      message: 'Invalid request: url must use http or https, not ftp.',
    })
    assert.deepEqual(refusal('file:///etc/passwd'), {
      problem: 'must be http or https',
      message: 'Invalid request: url must use http or https, not file.',
    })
    assert.deepEqual(refusal('https://user:pass@example.com/'), {
      problem: 'must not contain credentials',
      message: 'Invalid request: url must not contain a user name or password.',
    })
    // An empty user name or fragment too: the parser would drop the one and keep the other, never sent.
    for (const url of ['https://@example.com/', 'https://:@example.com/hook']) {
      assert.deepEqual(
        refusal(url),
        {
          problem: 'must not contain credentials',
          message: 'Invalid request: url must not contain a user name or password.',
        },
        url,
      )
    }
    for (const url of ['https://example.com/#x', 'https://example.com/hook#', 'https://example.com#']) {
      assert.deepEqual(
        refusal(url),
        {
          problem: 'must not have a fragment',
          message: 'Invalid request: url must not have a fragment (#…), which is never sent.',
        },
        url,
      )
    }
    // A # percent-encoded in the path or the query is part of what is sent, not a fragment.
    assert.equal(checkDestination('https://example.com/a%23b?c=%23', false), 'https://example.com/a%23b?c=%23')
    assert.deepEqual(refusal('example.com/hook'), {
      problem: 'is not a URL',
      message: 'Invalid request: url is not an absolute URL.',
    })
  })

  it('refuses what the URL parser would silently repair, rather than store another URL than the one sent', () => {
    for (const url of [
      ' https://example.com/',
      'https://example.com/\t',
      'https://exa\nmple.com/',
      'https://example.com/a b',
      'https://example.com/\u0000',
      'https://example.com/\u007f',
    ]) {
      assert.deepEqual(
        refusal(url),
        {
          problem: 'must not contain spaces or control characters',
          message: 'Invalid request: url must not contain spaces or control characters (percent-encode them).',
        },
        JSON.stringify(url),
      )
    }
    for (const url of [
      'http:example.com/',
      'https:/example.com/',
      'http:\\\\example.com/',
      'https:\\/example.com/',
      'https:///example.com/hook',
    ]) {
      assert.deepEqual(
        refusal(url),
        {
          problem: 'must start with http:// or https://',
          message: 'Invalid request: url must start with http:// or https:// and a host.',
        },
        url,
      )
    }
    for (const url of ['https://\\example.com/hook', 'https://example.com\\hook', 'https://example.com/a\\b']) {
      assert.deepEqual(
        refusal(url),
        { problem: 'must not contain a backslash', message: 'Invalid request: url must not contain a backslash (\\).' },
        url,
      )
    }
    assert.equal(checkDestination('https://example.com/a%20b', false), 'https://example.com/a%20b')
  })

  it('refuses port 0, where nothing can be delivered, in every spelling', () => {
    for (const url of ['http://8.8.8.8:0/', 'https://example.com:0/hook', 'http://[2606:4700:4700::1111]:00/']) {
      assert.deepEqual(refusal(url), {
        problem: 'must not use port 0',
        message: 'Invalid request: url must not use port 0, where no service can listen.',
      })
    }
  })

  it('accepts public destinations, normalised; host names are left to the check at each attempt', () => {
    assert.equal(checkDestination('HTTPS://Example.COM:443/hooks?a=1', false), 'https://example.com/hooks?a=1')
    assert.equal(checkDestination('http://8.8.8.8:8080/x', false), 'http://8.8.8.8:8080/x')
    assert.equal(checkDestination('http://[2606:4700:4700::1111]/', false), 'http://[2606:4700:4700::1111]/')
    assert.equal(checkDestination('https://internal.corp.example/', false), 'https://internal.corp.example/')
  })

  it('accepts private destinations when private networks are allowed', () => {
    assert.equal(checkDestination('http://127.0.0.1:9999/hook', true), 'http://127.0.0.1:9999/hook')
    assert.equal(checkDestination('http://localhost/', true), 'http://localhost/')
  })
})
