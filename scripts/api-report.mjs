/**
 * The public API report: every subpath export of the package (from the built `dist/*.d.ts`), each
 * exported name with its TSDoc summary, kind and type, written to `api/<subpath>.api.md`; an export
 * without a summary fails it. `npm test` runs it with
 * `--check` and fails when the surface changed without the report being updated, so the public API
 * changes only on purpose: run `npm run api:report` and commit the report with the change.
 *
 *   node scripts/api-report.mjs [--check]
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));
const check = process.argv.includes('--check');

const entries = Object.entries(pkg.exports)
  .filter(([, target]) => typeof target === 'object' && target.import?.types)
  .map(([subpath, target]) => ({
    subpath,
    name: subpath === '.' ? 'index' : subpath.slice(2).replaceAll('/', '-'),
    file: `${root}${target.import.types.slice(2)}`,
  }));

const program = ts.createProgram(
  entries.map((e) => e.file),
  {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
  },
);
const checker = program.getTypeChecker();
const FLAGS = ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.UseFullyQualifiedType;

const undocumented = [];

function describe(symbol, subpath) {
  const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  const name = symbol.getName();
  // The first sentence of the comment, on one line.
  const comment = ts
    .displayPartsToString(target.getDocumentationComment(checker))
    .replace(/\s+/g, ' ')
    .trim();
  const summary = comment.match(/^.*?[.!?](?=\s|$)/)?.[0] ?? comment;
  if (!summary) undocumented.push(`${subpath} ${name}`);
  const lines = summary ? [`/** ${summary} */`] : [];
  const declaration = target.declarations?.[0];
  const at = declaration ?? target.valueDeclaration;
  if (target.flags & ts.SymbolFlags.Function) {
    const type = checker.getTypeOfSymbolAtLocation(target, at);
    for (const signature of type.getCallSignatures())
      lines.push(`function ${name}${checker.signatureToString(signature, at, FLAGS)}`);
  } else if (target.flags & ts.SymbolFlags.Class) {
    lines.push(`class ${name}`);
    const instance = checker.getDeclaredTypeOfSymbol(target);
    for (const member of checker.getPropertiesOfType(instance)) {
      const modifiers = ts.getCombinedModifierFlags(member.valueDeclaration ?? at);
      if (
        modifiers & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected) ||
        member.getName().startsWith('#')
      )
        continue;
      lines.push(
        `  ${member.getName()}: ${checker.typeToString(checker.getTypeOfSymbolAtLocation(member, at), at, FLAGS)}`,
      );
    }
  } else if (target.flags & ts.SymbolFlags.Interface) {
    lines.push(`interface ${name}`);
    const type = checker.getDeclaredTypeOfSymbol(target);
    for (const signature of type.getCallSignatures())
      lines.push(`  ${checker.signatureToString(signature, at, FLAGS)}`);
    for (const member of checker.getPropertiesOfType(type)) {
      const optional = member.flags & ts.SymbolFlags.Optional ? '?' : '';
      lines.push(
        `  ${member.getName()}${optional}: ${checker.typeToString(checker.getTypeOfSymbolAtLocation(member, at), at, FLAGS)}`,
      );
    }
  } else if (target.flags & ts.SymbolFlags.TypeAlias) {
    const type = checker.getDeclaredTypeOfSymbol(target);
    lines.push(`type ${name} = ${checker.typeToString(type, at, FLAGS | ts.TypeFormatFlags.InTypeAlias)}`);
  } else if (target.flags & ts.SymbolFlags.Variable) {
    lines.push(
      `const ${name}: ${checker.typeToString(checker.getTypeOfSymbolAtLocation(target, at), at, FLAGS)}`,
    );
  } else if (target.flags & ts.SymbolFlags.Enum) {
    lines.push(`enum ${name}`);
  } else {
    lines.push(`${name} (${ts.SymbolFlags[target.flags] ?? target.flags})`);
  }
  // A value and a type of the same name (e.g. a zod schema and its output type) are both reported.
  if (target.flags & ts.SymbolFlags.Variable && target.flags & ts.SymbolFlags.TypeAlias) {
    lines.push(
      `type ${name} = ${checker.typeToString(checker.getDeclaredTypeOfSymbol(target), at, FLAGS | ts.TypeFormatFlags.InTypeAlias)}`,
    );
  }
  return lines.join('\n');
}

// tsup's declaration bundles export types from hashed chunks under one-letter aliases (`Domain as D`):
// name each by what it is, and drop absolute paths, so the report is the same on every machine.
const aliases = new Map();
for (const file of readdirSync(`${root}dist`).filter((f) => f.endsWith('.d.ts'))) {
  const text = readFileSync(`${root}dist/${file}`, 'utf8');
  for (const [, list] of text.matchAll(/export \{([^}]*)\}/g))
    for (const [, original, alias] of list.matchAll(/([\w$]+) as ([\w$]+)/g))
      aliases.set(`${file.replace(/\.d\.ts$/, '')}:${alias}`, original);
}
function portable(text) {
  return text.replace(/import\("([^"]+)"\)\.([\w$]+)/g, (_, path, name) => {
    const chunk = path.startsWith(`${root}dist/`) ? path.slice(root.length + 5) : undefined;
    return (chunk && aliases.get(`${chunk}:${name}`)) || name;
  });
}

const reports = entries.map(({ subpath, name, file }) => {
  const source = program.getSourceFile(file);
  if (!source) throw new Error(`api-report: ${file} is missing; run the build first.`);
  const exports = checker.getExportsOfModule(checker.getSymbolAtLocation(source));
  const body = exports
    .sort((a, b) => a.getName().localeCompare(b.getName()))
    .map((symbol) => portable(describe(symbol, subpath)))
    .join('\n\n');
  const text = `# switchboard-kit${subpath === '.' ? '' : subpath.slice(1)}: public API (${exports.length} exports)\n\nGenerated by \`npm run api:report\` from the built declarations; \`npm test\` fails when it differs.\n\n\`\`\`ts\n${body}\n\`\`\`\n`;
  return { file: `${root}api/${name}.api.md`, text };
});

// A path of this machine in the report would make it differ on every other one.
const local = reports.find((r) => r.text.includes(root));
if (local) {
  console.error(
    `api-report: ${local.file.slice(root.length)} names a local path; a type is not mapped back to its name.`,
  );
  process.exit(1);
}

if (undocumented.length) {
  console.error(
    `Every public export needs a TSDoc summary; these have none:\n  ${undocumented.join('\n  ')}`,
  );
  process.exit(1);
}

if (check) {
  const stale = reports.filter((r) => !existsSync(r.file) || readFileSync(r.file, 'utf8') !== r.text);
  if (stale.length) {
    console.error(
      `The public API changed: ${stale.map((r) => r.file.slice(root.length)).join(', ')}.\n` +
        'If that is on purpose, run `npm run api:report` and commit the report with the change.',
    );
    process.exit(1);
  }
  console.log(`api-report: ${reports.length} subpaths match the checked-in report.`);
} else {
  mkdirSync(`${root}api`, { recursive: true });
  for (const r of reports) writeFileSync(r.file, r.text);
  console.log(`api-report: wrote ${reports.length} reports to api/.`);
}
