/**
 * The pieces every page's frame shares: the link to the one style sheet and the header with the host's
 * logo and name, written with the one HTML template.
 */
import { type Html, html } from '../html.js';
import type { Look } from './options.js';

/** What a page shows of the look: the host's name and logo, and where its block serves the style sheet. */
export interface Branding {
  readonly name: string;
  readonly logoUrl?: string | undefined;
  /** The style sheet's URL (a path), e.g. `/oauth/look-1x2y3z.css`. */
  readonly stylesheet: string;
}

/** The branding of a block that serves the look's files under `assets` (a path without the final `/`). */
export function brandingOf(look: Look, assets: string): Branding {
  return { name: look.name, logoUrl: look.logoUrl, stylesheet: `${assets}/${look.stylesheet.name}` };
}

/** The `<link>` to the one style sheet. */
export function stylesheetLink(branding: Branding): Html {
  return html`<link rel="stylesheet" href="${branding.stylesheet}">`;
}

/** The header: the logo (decorative: the name says it) and the name, linked to `home` when given. */
export function siteHeader(
  branding: Pick<Branding, 'name' | 'logoUrl'>,
  options: { home?: string; after?: Html } = {},
): Html {
  const logo = branding.logoUrl && html`<img class="site-logo" src="${branding.logoUrl}" alt="">`;
  const name = options.home ? html`<a href="${options.home}">${branding.name}</a>` : branding.name;
  return html`<header class="site-header"><p class="site-name">${logo}${name}</p>${options.after}</header>`;
}

/**
 * The CSP of a page that links the look: nothing inline, styles and images from here (the logo's
 * origin too), plus `extra` directives, e.g. `script-src 'self'`.
 */
export function lookCsp(look: Look, extra: readonly string[] = []): string {
  return [
    "default-src 'none'",
    "style-src 'self'",
    `img-src ${look.imgSrc}`,
    ...extra,
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}
