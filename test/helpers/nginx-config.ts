// The deployed nginx configuration (deploy/nginx/petstore.conf.template) filled in the way the nginx
// container image fills it in, inside the main configuration that image provides around its conf.d, reduced
// to what a local run needs. Used by the multi-instance test and by the two-instance benchmark.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const NGINX_BINARY = '/usr/sbin/nginx'
const TEMPLATE = fileURLToPath(new URL('../../deploy/nginx/petstore.conf.template', import.meta.url))

/** Writes the configuration into `directory` (which also holds nginx's temporary files); returns nginx.conf's path. */
export function writeNginxConfiguration(directory: string, upstreams: [string, string], listen: string): string {
  const site = readFileSync(TEMPLATE, 'utf8')
    .replaceAll('${PETSTORE_UPSTREAM_1}', upstreams[0])
    .replaceAll('${PETSTORE_UPSTREAM_2}', upstreams[1])
    .replaceAll('${NGINX_LISTEN}', listen)
  writeFileSync(join(directory, 'petstore.conf'), site)
  for (const temp of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(directory, temp))
  const path = join(directory, 'nginx.conf')
  writeFileSync(
    path,
    `
${process.getuid?.() === 0 ? 'user root;' : ''}
worker_processes 1;
daemon off;
pid ${directory}/nginx.pid;
error_log ${directory}/error.log warn;
events { worker_connections 512; }
http {
  access_log off;
  client_body_temp_path ${directory}/body;
  proxy_temp_path ${directory}/proxy;
  fastcgi_temp_path ${directory}/fastcgi;
  uwsgi_temp_path ${directory}/uwsgi;
  scgi_temp_path ${directory}/scgi;
  include ${directory}/petstore.conf;
}
`,
  )
  return path
}
