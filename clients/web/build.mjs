// Builds the web client into dist/: the page, on @belote/client (clients/ts, whose build
// generates the code of belote.v1; npm ci installs it), type-checked and bundled by esbuild
// with everything it imports, so `belote serve` serves it from its web port without any CDN.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));

// The types are checked before anything is bundled (esbuild itself only strips them).
execFileSync(join(here, "node_modules/.bin/tsc"), ["-p", here], { stdio: "inherit" });

const dist = join(here, "dist");
rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });
// The script and the style sheet are named after their content (app.<hash>.js,
// style.<hash>.css): the server lets browsers keep them for a year (api/web.py), and a new
// build is new names in the page, which browsers revalidate on every visit. The style sheet
// goes through esbuild's copy loader, unchanged, only for esbuild's [hash] in its name.
const sources = { app: "src/main.ts", style: "static/style.css" };
const built = await build({
  entryPoints: sources,
  // esbuild's [hash] covers the paths relative to it too: one build, wherever it is run from,
  // gives one name.
  absWorkingDir: here,
  outdir: dist,
  entryNames: "[name].[hash]",
  loader: { ".css": "copy" },
  metafile: true,
  bundle: true,
  minify: true,
  sourcemap: false,
  format: "esm",
  target: ["es2020"],
  logLevel: "warning",
});
// The built name of each source (the metafile's paths are relative to absWorkingDir).
const builtName = {};
for (const [output, { entryPoint }] of Object.entries(built.metafile.outputs)) {
  if (entryPoint) builtName[entryPoint] = basename(output);
}
const app = builtName[sources.app];
const style = builtName[sources.style];
// The page references its assets by their source names (static/index.html): each reference is
// rewritten to the built name, and a reference not found fails the build.
let page = readFileSync(join(here, "static/index.html"), "utf8");
for (const [reference, name] of [['src="app.js"', app], ['href="style.css"', style]]) {
  if (!name || !page.includes(reference)) throw new Error(`static/index.html: no ${reference} to build`);
  page = page.replace(reference, reference.replace(/"[^"]+"/, `"${name}"`));
}
writeFileSync(join(dist, "index.html"), page);
console.log(`built ${dist}: index.html, ${app}, ${style}`);
