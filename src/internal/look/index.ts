/** The one look of every page: the style sheet, the host's branding, and the frame's pieces. */
export { type Asset, asset, assetResponse } from './asset.js';
export { type Look, type LookOptions, resolveLook } from './options.js';
export { type Branding, brandingOf, lookCsp, siteHeader, stylesheetLink } from './page.js';
