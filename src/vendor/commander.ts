// commander, as ncclx loads it. Commander is CommonJS: loaded from an ES module it
// goes through Node's CommonJS loader and export lexer, file by file, on every
// ncclx start. `npm run build` bundles this module in place into one ES module
// (scripts/bundle-vendor.mjs), which loads in about 10 ms less on these machines —
// time every command pays, `ncclx ps` included (docs/testing.md, "Speed").
export { Command, CommanderError, Option } from 'commander';
