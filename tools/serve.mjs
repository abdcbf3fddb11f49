// A static file server for the explorer: the site root is a folder (web/page/, whose dist is a link
// to the build output web/dist/; links are followed, paths that climb out of the root are not), nothing else is
// reachable, and the MIME types are the ones browsers insist on for ES modules and wasm. Like a
// static host it sends Content-Length (the page shows download progress from it) and an ETag, so
// the page's three contexts that load the module fetch its bytes once and revalidate after. Every
// response makes the page cross-origin isolated (COOP same-origin, COEP require-corp), which a
// browser requires before it shares memory between threads: the module's threads build then
// runs in the explorer's workers (loadAttn's default there is the hardware's thread count).
//   node tools/serve.mjs web/page 8080   (port 0 picks a free one; prints the URL)
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.ts': 'text/plain; charset=utf-8',
  '.safetensors': 'application/octet-stream',
  '.npy': 'application/octet-stream',
};

// Cross-origin isolation for the page and for the Workers it starts (a Worker's script carries its
// own policy); every resource is same-origin, and says so for COEP's sake.
const ISOLATION = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

export function serve(rootDirectory, port = 0, host = '127.0.0.1') {
  const root = resolve(rootDirectory);
  const server = createServer(async (request, response) => {
    try {
      const url = new URL(request.url, 'http://localhost');
      let path = normalize(join(root, decodeURIComponent(url.pathname)));
      if (path !== root && !path.startsWith(root + sep)) throw Object.assign(new Error('outside the site'), { code: 'ENOENT' });
      let file = await stat(path);
      if (file.isDirectory()) {
        path = join(path, 'index.html');
        file = await stat(path);
      }
      const etag = `"${file.size.toString(16)}-${Math.floor(file.mtimeMs).toString(16)}"`;
      const headers = {
        'Content-Type': TYPES[extname(path)] ?? 'application/octet-stream',
        'Cache-Control': 'no-cache',
        'X-Content-Type-Options': 'nosniff',
        ...ISOLATION,
        ETag: etag,
      };
      if (request.headers['if-none-match'] === etag) {
        response.writeHead(304, headers);
        response.end();
        return;
      }
      const body = await readFile(path);
      response.writeHead(200, { ...headers, 'Content-Length': body.length });
      response.end(request.method === 'HEAD' ? undefined : body);
    } catch (error) {
      const missing = error.code === 'ENOENT' || error.code === 'ENOTDIR' || error instanceof URIError;
      response.writeHead(missing ? 404 : 500, { 'Content-Type': 'text/plain; charset=utf-8', ...ISOLATION });
      response.end(missing ? 'not found\n' : 'server error\n');
    }
  });
  return new Promise((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolvePromise(server));
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [directory = 'web/page', port = '8080'] = process.argv.slice(2);
  const server = await serve(directory, Number(port));
  const { port: actual } = server.address();
  console.log(`attnscope explorer: http://localhost:${actual}/`);
  console.log('(Ctrl-C stops it)');
}
