// Builds the web client into dist/: TypeScript generated from ../../proto by protobuf-es (into
// src/gen/, never committed), then the page bundled by esbuild with everything it imports, so
// `belote serve` serves it from its web port without any CDN.
//
// PYTHON: the interpreter whose grpcio-tools runs protoc (default: the project's .venv).
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../..");
const python = process.env.PYTHON || join(root, ".venv/bin/python");

// protoc comes with grpcio-tools, google/rpc/error_details.proto with googleapis-common-protos:
// the project's Python dependencies already hold both.
const includes = JSON.parse(execFileSync(python, ["-c", `
import json, os, grpc_tools, google.rpc.error_details_pb2 as details
print(json.dumps([os.path.join(os.path.dirname(grpc_tools.__file__), "_proto"),
                  os.path.dirname(os.path.dirname(os.path.dirname(details.__file__)))]))
`]).toString());
const protos = readdirSync(join(root, "proto/belote/v1")).filter((f) => f.endsWith(".proto"))
  .map((f) => `belote/v1/${f}`);

const gen = join(here, "src/gen");
rmSync(gen, { recursive: true, force: true });
mkdirSync(gen, { recursive: true });
execFileSync(python, [
  "-m", "grpc_tools.protoc", `-I${join(root, "proto")}`, ...includes.map((i) => `-I${i}`),
  `--plugin=protoc-gen-es=${join(here, "node_modules/.bin/protoc-gen-es")}`,
  `--es_out=${gen}`, "--es_opt=target=ts,import_extension=none",
  ...protos, "google/rpc/error_details.proto",
], { stdio: "inherit" });

// The types are checked before anything is bundled (esbuild itself only strips them).
execFileSync(join(here, "node_modules/.bin/tsc"), ["-p", here], { stdio: "inherit" });

const dist = join(here, "dist");
rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });
await build({
  entryPoints: [join(here, "src/main.ts")],
  outfile: join(dist, "app.js"),
  bundle: true,
  minify: true,
  sourcemap: false,
  format: "esm",
  target: ["es2020"],
  logLevel: "warning",
});
for (const file of ["index.html", "style.css"]) {
  copyFileSync(join(here, "static", file), join(dist, file));
}
console.log(`built ${dist}`);
