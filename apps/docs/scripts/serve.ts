/**
 * A tiny static file server for the built site (apps/docs/dist), used by
 * `npm run preview -w @scanlab/docs` and by the browser test. It serves
 * `x.html` for `/x` (VitePress clean URLs) and `index.html` for folders,
 * and never leaves the root folder.
 *
 *   tsx scripts/serve.ts [--port 4173] [--root dist]
 */
import { createReadStream, existsSync, statSync } from "node:fs";
import { createServer } from "node:http";
import { extname, join, normalize, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
};

/** The file a URL path maps to under `root`, or undefined. */
function fileFor(root: string, urlPath: string): string | undefined {
  let path: string;
  try {
    path = decodeURIComponent(urlPath.split("?")[0]!.split("#")[0]!);
  } catch {
    return undefined;
  }
  const full = normalize(join(root, path));
  if (full !== root && !full.startsWith(root + sep)) return undefined;
  const candidates = [full, `${full}.html`, join(full, "index.html")];
  return candidates.find((f) => existsSync(f) && statSync(f).isFile());
}

/** A running server: its base URL (no trailing slash) and how to stop it. */
export interface RunningServer {
  url: string;
  close: () => Promise<void>;
}

/** Starts serving `root` on `port` (0 = any free port) on 127.0.0.1. */
export function serve(root: string, port = 0): Promise<RunningServer> {
  const base = resolve(root);
  const server = createServer((req, res) => {
    const file = fileFor(base, req.url ?? "/");
    if (!file) {
      const notFound = join(base, "404.html");
      res.writeHead(404, { "content-type": TYPES[".html"] });
      if (existsSync(notFound)) createReadStream(notFound).pipe(res);
      else res.end("not found");
      return;
    }
    res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" });
    createReadStream(file).pipe(res);
  });
  return new Promise((ok, fail) => {
    server.once("error", fail);
    server.listen(port, "127.0.0.1", () => {
      const address = server.address();
      const actual = typeof address === "object" && address ? address.port : port;
      ok({
        url: `http://127.0.0.1:${actual}`,
        close: () => new Promise<void>((done) => server.close(() => done())),
      });
    });
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const arg = (name: string, fallback: string): string => {
    const i = process.argv.indexOf(name);
    return (i >= 0 ? process.argv[i + 1] : undefined) ?? fallback;
  };
  const root = resolve(arg("--root", join(fileURLToPath(new URL("..", import.meta.url)), "dist")));
  if (!existsSync(join(root, "index.html"))) {
    console.error(`${root} has no index.html: build the site first (npm run build -w @scanlab/docs).`);
    process.exit(2);
  }
  // 4173: `vite preview`'s default port, so the site is where a VitePress user expects it.
  const { url } = await serve(root, Number(arg("--port", "4173")));
  console.log(`scanlab docs: ${url}/ (Ctrl-C to stop)`);
}
