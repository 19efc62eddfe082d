// Builds @belote/client into dist/: TypeScript generated from ../../proto by protobuf-es
// (`buf generate` with buf.gen.yaml, into src/gen/, never committed), then the whole of src/
// compiled by tsc into ES modules with their .d.ts. `npm pack` packs dist/ (package.json's
// "files"). Only this folder's node_modules (npm ci) is needed: buf compiles the .proto files
// itself, with no protoc and no Python.
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const bin = (name) => join(here, "node_modules/.bin", name);

execFileSync(bin("buf"), ["generate"], { cwd: here, stdio: "inherit" });
rmSync(join(here, "dist"), { recursive: true, force: true });
execFileSync(bin("tsc"), ["-p", here], { cwd: here, stdio: "inherit" });
console.log(`built ${join(here, "dist")}`);
