// Builds the Node.js client into dist/ (belote.mjs, the client; play.mjs, the game it plays):
// its TypeScript and the web client's it imports (the code protobuf-es generated from
// ../../proto into ../web/src/gen, and ../web/src/client.ts), type-checked, then bundled by
// esbuild with every package it uses, so dist/ runs on Node.js alone.
//
// The web client is built first (`make install` does it; by hand: `node ../web/build.mjs` in
// clients/web after its npm ci): its build generates the code this one shares.
import { execFileSync } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const generated = join(here, "../web/src/gen/belote/v1/table_service_pb.ts");
if (!existsSync(generated)) {
  console.error(`${generated} is missing: build the web client first (make install)`);
  process.exit(1);
}

execFileSync(join(here, "node_modules/.bin/tsc"), ["-p", here], { stdio: "inherit" });

// The shared files under ../web import @bufbuild/protobuf and @connectrpc/connect too: one copy
// of each, this package's (pinned in its package-lock.json), not the web client's. (client.ts
// also imports @connectrpc/connect-web, for the transport of a page only: unused here, and
// dropped from the bundle.)
const ownPackages = {
  name: "own-packages",
  setup(b) {
    b.onResolve({ filter: /^@(bufbuild\/protobuf|connectrpc\/connect)(\/|$)/ }, (args) => args.pluginData === here
      ? undefined
      : b.resolve(args.path, { kind: args.kind, resolveDir: here, pluginData: here }));
  },
};

const dist = join(here, "dist");
rmSync(dist, { recursive: true, force: true });
await build({
  entryPoints: { belote: join(here, "src/belote.ts"), play: join(here, "src/play.ts") },
  outdir: dist,
  outExtension: { ".js": ".mjs" },
  bundle: true,
  platform: "node",
  format: "esm",
  target: ["node18"],
  plugins: [ownPackages],
  logLevel: "warning",
});
console.log(`built ${dist}`);
