// Builds plotly-bar-heatmap.min.js: plotly.js core (scatter, shapes, annotations, colour bars)
// with the bar and heatmap traces, all that the contention timeline and the summary draw. Run in
// a folder where the npm packages are installed:
//   npm install plotly.js@4.1.1 esbuild@0.24.2 esbuild-plugin-environment@0.5.0 esbuild-plugin-inline-css@0.0.1
//   NODE_PATH=node_modules node build_plotly.js <folder to write into>
// (the settings of plotly.js's own esbuild-config.js, which its npm package ships without the
// tasks it reads; the WebGL ones left out, no trace here needs them)
const path = require('path');
const esbuild = require('esbuild');
const { environmentPlugin } = require('esbuild-plugin-environment');
const InlineCSSPlugin = require('esbuild-plugin-inline-css');
const esbuildConfig = {
  format: 'iife', globalName: 'Plotly', bundle: true, sourcemap: false,
  plugins: [InlineCSSPlugin(), environmentPlugin({ NODE_DEBUG: false })],
  define: { global: 'window', 'define.amd': 'false' }, target: 'es2016', logLevel: 'info',
};
const version = require('plotly.js/package.json').version;
const root = path.dirname(require.resolve('plotly.js/package.json'));
const out = path.join(process.argv[2] || '.', 'plotly-bar-heatmap.min.js');
esbuild.build({
  ...esbuildConfig,
  stdin: {
    contents: "var Plotly = require('./lib/core');\n" +
      "Plotly.register([require('./lib/bar'), require('./lib/heatmap')]);\nmodule.exports = Plotly;\n",
    resolveDir: root,
  },
  minify: true,
  outfile: out,
  banner: { js: `/**\n* plotly.js (core, bar, heatmap - minified) v${version}\n* Copyright 2012-2026, Plotly, Inc.\n* All rights reserved.\n* Licensed under the MIT license\n*/` },
}).then(() => console.log('wrote', out));
