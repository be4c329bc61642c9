/**
 * The host's branding, set once (`createSwitchboard({ look })`, or `createRuntime({ look })` for a block
 * used alone) and shown by every page: the name in each page's header, a logo beside it, and the accent
 * colour of links and primary buttons.
 */
import { type Asset, asset } from './asset.js';
import { STYLESHEET } from './stylesheet.js';

/** What the host may set; everything is optional. */
export interface LookOptions {
  /** Shown in every page's header and title. Default `Switchboard`. */
  readonly name?: string;
  /**
   * An image shown before the name: a path on this server (`/logo.svg`), an `https:` URL, or a
   * `data:image/…` URL. Each page's CSP allows exactly its origin.
   */
  readonly logoUrl?: string;
  /** Links and primary buttons, as `#rgb` or `#rrggbb`; white text must be readable on it. */
  readonly accent?: string;
}

/** A look ready for pages: checked, with its style sheet made (and still a {@link LookOptions}). */
export interface Look {
  readonly name: string;
  readonly logoUrl?: string;
  /** The one style sheet, with the accent in it (so its name changes with the accent). */
  readonly stylesheet: Asset;
  /** The CSP `img-src` the logo needs. */
  readonly imgSrc: string;
}

const HEX = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i;
// The value goes into an escaped HTML attribute only, never into CSS: the scheme and type are what matter.
const DATA_IMAGE = /^data:image\/(?:png|gif|jpeg|webp|svg\+xml)(?:;[\w=.-]+)*,\S*$/i;

/**
 * Checks the options and makes the style sheet; throws a `RangeError` naming the option at fault
 * (`createRuntime` turns it into `bad_request`), so a bad value stops the server at construction, never
 * a page. A look already resolved is returned as it is.
 */
export function resolveLook(options: LookOptions | Look = {}): Look {
  if ('stylesheet' in options) return options;
  const name = options.name?.trim() || 'Switchboard';
  if (name.length > 80) throw invalid('look.name', 'must be at most 80 characters');
  const { accent, logoUrl } = options;
  if (accent !== undefined && !HEX.test(accent)) {
    throw invalid('look.accent', `must be a colour written #rgb or #rrggbb (got "${accent}")`);
  }
  const css = accent === undefined ? STYLESHEET : `${STYLESHEET}:root{--accent:${accent.toLowerCase()}}\n`;
  return {
    name,
    ...(logoUrl === undefined ? {} : { logoUrl }),
    stylesheet: asset('look', 'css', 'text/css; charset=utf-8', css),
    imgSrc: ["'self'", logoUrl === undefined ? '' : logoSource(logoUrl)].filter(Boolean).join(' '),
  };
}

/** The CSP source that lets the logo load: itself for a path, its origin for https, `data:`. */
function logoSource(url: string): string {
  if (url.startsWith('data:')) {
    if (!DATA_IMAGE.test(url))
      throw invalid('look.logoUrl', 'must be a data:image/… URL of png, gif, jpeg, webp or svg+xml');
    return 'data:';
  }
  if (url.startsWith('/') && !url.startsWith('//') && !/[\s"'<>\\]/.test(url)) return '';
  if (URL.canParse(url) && new URL(url).protocol === 'https:') return new URL(url).origin;
  throw invalid(
    'look.logoUrl',
    `must be a path on this server, an https: URL or a data:image/… URL (got "${url.slice(0, 60)}")`,
  );
}

function invalid(option: string, rule: string): RangeError {
  return new RangeError(`${option} ${rule}.`);
}
