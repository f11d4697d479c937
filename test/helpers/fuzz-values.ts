// Hostile values the mutations draw from. Numbers and bodies are JSON text, because what matters is the
// literal the client writes (JSON.parse would already have rounded 2^53+1 or refused 1e309).

/** Number literals at and beyond every boundary: 2^53±1, 2^63, 2^64, int32 edges, negative zero, fractions, exponents. */
export const ODD_NUMBERS = [
  '0', '-0', '-1', '0.0', '1.0', '1.5', '-1.5', '1e2', '1E2', '1e+2', '0.1e1', '1e-7', '2147483647', '2147483648', '-2147483649',
  '4294967296', '9007199254740991', '9007199254740992', '9007199254740993', '-9007199254740991', '-9007199254740993',
  '9223372036854775807', '9223372036854775808', '-9223372036854775809', '18446744073709551616', '1e308', '1e309', '-1e309',
  '123456789012345678901234567890', `1${'0'.repeat(400)}`, '5e-324', '2.2250738585072014e-308', '0.30000000000000004',
]

/** Text that looks like a number to someone: NaN and Infinity spellings, other bases and digit systems, padding. */
export const NAN_LIKE = [
  'NaN', '-NaN', 'nan', 'Infinity', '-Infinity', '+Infinity', 'inf', 'undefined', 'null', 'true', 'false', '', ' ',
  '0x10', '0b1', '0o7', '1_000', '1,5', '1.', '.5', '+1', ' 1', '1 ', '01', '00', '-01', '1e1000', '\u0661', '\uff11',
  '\u00bd', '\u216b', '1\u0000', '[]', '{}', '[1]', '1n', '0.0.1',
]

/** A selection in the spirit of the Big List of Naughty Strings, plus NUL, control characters and lone surrogates. */
export const NAUGHTY_STRINGS = [
  '\'; DROP TABLE pets; --', '" OR 1=1 --', '<script>alert(1)</script>', '../../../../etc/passwd', '..\\..\\windows\\win.ini',
  '%00', '%s%s%s%n', '${jndi:ldap://127.0.0.1/a}', '{{7*7}}', '#{7*7}', '$(reboot)', '`id`', '\u202eRTL override',
  '\u200b', '\ufeffBOM', 'Z\u0364\u0354\u0367\u0311\u0313a\u0308\u0356\u032d\u0308\u0307', '\u7530\u4e2d\u3055\u3093',
  '\u{1f468}\u200d\u{1f469}\u200d\u{1f467}\u200d\u{1f466}', '\u{1f436}'.repeat(100), '\ufdfa', '\u0000', 'a\u0000b',
  '\u0007\u001b[31mred', '\r\n', 'line\nbreak', '\t', '\\', '"', '\'', '__proto__', 'constructor', 'hasOwnProperty',
  'prototype', 'toString', 'valueOf', 'x'.repeat(201), 'x'.repeat(5000), '\ud800', '\udfff', 'a\ud83d', '\ude00b',
  '\ud83d\ude00', '\u{10ffff}', '\ufffe', '\uffff', '\u0085', '\u2028\u2029', '\u00e9'.repeat(200), 'e\u0301'.repeat(150),
]

/** JSON values of every type, for a property that expects another. */
export const WRONG_TYPE_VALUES = ['"1"', '"available"', '""', '1', '1.5', '-1', '0', 'true', 'false', 'null', '[]', '{}', '[1,2]', '{"a":1}', '[null]', '"null"']

/** Whole request bodies that are not the expected object, or not JSON at all. */
export const ODD_BODIES = [
  '', ' ', '\n', 'null', '[]', '[{}]', '"text"', '0', '-1', 'true', '{}', '{', '}', '{"a":}', '[1,', 'NaN', 'undefined',
  '{\'name\':\'Rex\'}', '{name:"Rex"}', '\ufeff{}', '{}{}', '{} ', ' {}', '{"a":1,}', '[1,]', '{"a":1}//', '/*x*/{}', '{"a":"\\x41"}',
  '{"a":"\\u00"}', '{"a":"\\ud800"}', '{"a":01}', '{"a":.5}', '{"a":+1}', '{"a":1e}', '{"a":Infinity}', '{"a":-}', '"\\u0000"',
]

/** Bytes that are not valid UTF-8 or not JSON text at all, placed inside an otherwise valid object. */
export const RAW_BYTES = [
  Buffer.from([0x00]), Buffer.from([0xff]), Buffer.from([0xfe, 0xff]), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from([0xc0, 0xaf]),
  Buffer.from([0xf4, 0x90, 0x80, 0x80]), Buffer.from([0xe2, 0x82]), Buffer.from([0x1b]), Buffer.from([0x0a]), Buffer.from([0x7f]),
]

/** Content types a client might send for a JSON body: wrong, malformed, differently cased or parameterised. */
export const ODD_CONTENT_TYPES = [
  'text/plain', 'text/plain; charset=utf-8', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x',
  'application/octet-stream', 'application/xml', 'text/json', 'application/jsonx', 'application/json-patch+json',
  'application/merge-patch+json', 'application/vnd.api+json', 'application/problem+json', 'APPLICATION/JSON', 'Application/Json',
  'application/json; charset=utf-16', 'application/json; charset=latin1', 'application/json; charset=ISO-8859-1',
  'application/json;', 'application/json; charset', 'application/json; charset=', 'application/json; charset="utf-8"',
  'application/json;charset=UTF-8;charset=utf-16', 'application/json; boundary=x', 'application/json, text/plain',
  'application/json\t', ' application/json', 'application/ json', 'application /json', 'application', 'application/', '/json',
  '*/*', 'application/*', ';', '=', '', 'x'.repeat(1000), 'application/json; q=0.5', 'application/json; charset=utf-8; x=y',
]

/** Query parameter names no operation documents, including prototype-pollution attempts. */
export const UNKNOWN_PARAMETER_NAMES = [
  '__proto__', 'constructor', 'prototype', '__proto__[polluted]', '__proto__.polluted', 'constructor[prototype][polluted]',
  'constructor.prototype.polluted', 'toString', 'hasOwnProperty', 'valueOf', 'a[b]', 'limit[]', 'LIMIT', 'Status', '', '%00',
  '%ED%A0%80', '%zz', 'x'.repeat(300), '%5F%5Fproto%5F%5F', 'id', 'page', 'offset', 'sort',
]

/** Query strings that are malformed as a whole. */
export const MALFORMED_QUERIES = [
  '', '&', '&&', '=', '==', '=1', '%', '%zz', '%%', '%ED%A0%80', '%FF', '%00', '?', ';', 'a=1;b=2', '+', '%2B', 'a=%', 'a=%zz',
  'a==b', '&=&=', `${'a=1&'.repeat(300)}a=1`, `q=${'%41'.repeat(1000)}`,
]

/** Path segment texts written as they go on the wire (already encoded, or deliberately not validly encoded). */
export const RAW_PATH_SEGMENTS = ['%zz', '%', '%0', '%00', '%FF', '%ED%A0%80', '%C0%AF', '%2F', '1%2F2', '1;x', '1,2', '%20', '1%20', '9'.repeat(300), '9'.repeat(5000), '%E2%80%AE1']

/** Authorization values that are missing a key, wrong, or malformed. `KEY` stands for the valid key. */
export const BAD_AUTHORIZATION = [
  undefined, '', 'Bearer', 'Bearer ', 'Basic dXNlcjpwYXNz', 'Bearer wrong-key-0123456789abcdef', 'Bearer KEYx', 'Bearer xKEY', 'Token KEY',
  'KEY', 'Bearer KEY KEY', 'Bearer\tKEY', 'BearerKEY', `Bearer ${'a'.repeat(5000)}`, 'Bearer pst_', 'Bearer %00', 'Bearer \u00e9\u00e9',
]
