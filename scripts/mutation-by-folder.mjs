// Kill rate per src/model folder from StrykerJS's JSON report (npm run mutate
// writes reports/mutation/mutation.json). Usage:
//   node scripts/mutation-by-folder.mjs [report.json …]
// Several reports (e.g. one per folder run) are merged, the last one winning
// for a file. The rate is Stryker's mutation score: (killed + timed out) over
// every mutant that is valid (compile and runtime errors, ignored and static
// mutants left out), mutants no test reaches counting as survivors.
import { readFileSync } from 'node:fs';

const files = process.argv.slice(2);
if (files.length === 0) files.push('reports/mutation/mutation.json');
const byFile = new Map();
for (const f of files) for (const [path, data] of Object.entries(JSON.parse(readFileSync(f, 'utf8')).files)) byFile.set(path, data);

const folders = new Map();
for (const [path, data] of byFile) {
  const m = /src\/model\/(.+)$/.exec(path);
  if (!m) continue;
  // The first folder under src/model (nccl/ib-findings/ib001.ts counts for nccl); files directly in src/model are '(model)'.
  const parts = m[1].split('/');
  const folder = parts.length > 1 ? parts[0] : '(model)';
  const c = folders.get(folder) ?? { killed: 0, survived: 0, noCoverage: 0 };
  for (const mu of data.mutants) {
    // Static mutants (module-level code) are left out (stryker.config.mjs ignoreStatic), also from older reports.
    if (mu.static) continue;
    if (mu.status === 'Killed' || mu.status === 'Timeout') c.killed++;
    else if (mu.status === 'Survived') c.survived++;
    else if (mu.status === 'NoCoverage') c.noCoverage++;
  }
  folders.set(folder, c);
}
const rows = [...folders].sort(([a], [b]) => a.localeCompare(b));
const pct = (c) => (c.killed + c.survived + c.noCoverage ? (100 * c.killed) / (c.killed + c.survived + c.noCoverage) : 100);
console.log('| folder | mutants | killed | survived | no coverage | kill rate |');
console.log('|---|---:|---:|---:|---:|---:|');
for (const [folder, c] of rows) console.log(`| ${folder} | ${c.killed + c.survived + c.noCoverage} | ${c.killed} | ${c.survived} | ${c.noCoverage} | ${pct(c).toFixed(1)} % |`);
