/** Custom Elements Manifest analyzer (`cem analyze`): Lit components only, written to ./custom-elements.json. */
export default {
  globs: ['src/components/**/*.ts'],
  exclude: ['src/**/*.styles.ts', 'src/**/*.test.ts'],
  outdir: '.',
  litelement: true,
  // package.json already names the manifest; never let the analyzer rewrite it.
  packagejson: false,
};
