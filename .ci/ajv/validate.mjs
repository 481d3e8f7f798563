// Judges NDJSON event lines with ajv, the JSON Schema validator most JavaScript users of
// kimi-run's stream will reach for, so docs/events.schema.json is known to mean the same to
// ajv as to the Go validator the tests use (internal/eventschema).
//
//   node validate.mjs SCHEMA [--accept FILE...] [--refuse FILE...]
//
// The schema must compile under strict mode (every strict option on). Every line of an
// --accept file must be valid and every line of a --refuse file invalid; each disagreement
// is printed with its file and line, and the exit status is 1 when there is one.
import fs from "node:fs";
import Ajv2020 from "ajv/dist/2020.js";

const [schemaPath, ...rest] = process.argv.slice(2);
if (!schemaPath) {
  console.error("usage: node validate.mjs SCHEMA [--accept FILE...] [--refuse FILE...]");
  process.exit(2);
}

const ajv = new Ajv2020({ strict: true, allErrors: true });
let validate;
try {
  validate = ajv.compile(JSON.parse(fs.readFileSync(schemaPath, "utf8")));
} catch (err) {
  console.error(`${schemaPath} does not compile under ajv's strict mode: ${err.message}`);
  process.exit(1);
}

let want = null;
let lines = 0;
let disagreements = 0;
for (const arg of rest) {
  if (arg === "--accept" || arg === "--refuse") {
    want = arg === "--accept";
    continue;
  }
  if (want === null) {
    console.error(`${arg}: say --accept or --refuse before the files`);
    process.exit(2);
  }
  const text = fs.readFileSync(arg, "utf8");
  text.split("\n").forEach((line, i) => {
    if (line === "") return;
    lines++;
    const ok = validate(JSON.parse(line));
    if (ok === want) return;
    disagreements++;
    const why = ok ? "ajv accepts it" : ajv.errorsText(validate.errors);
    console.log(`${arg}:${i + 1}: want ${want ? "valid" : "invalid"}, ${why}\n  ${line.slice(0, 300)}`);
  });
}
console.log(`ajv (draft 2020-12, strict): ${lines} lines, ${disagreements} disagreements`);
process.exit(disagreements === 0 ? 0 : 1);
