/**
 * What GraphiQL 4's markup misses for assistive technology (found by axe-core in test/pages), repaired
 * in the page as GraphiQL renders: CodeMirror's input areas get names, and a session tab's role moves
 * from the list item to the button inside it (a tab must not contain another control).
 */
const EDITORS: readonly (readonly [selector: string, label: string])[] = [
  ['.graphiql-query-editor', 'Query'],
  ['.graphiql-editor-tool .graphiql-editor:nth-of-type(1)', 'Variables'],
  ['.graphiql-editor-tool .graphiql-editor:nth-of-type(2)', 'Headers'],
  ['.result-window', 'Response'],
];

export function repairAccessibility(root: HTMLElement): void {
  const repair = () => {
    for (const [selector, label] of EDITORS)
      for (const input of root.querySelectorAll(`${selector} textarea:not([aria-label])`))
        input.setAttribute('aria-label', label);
    for (const tab of root.querySelectorAll('li[role="tab"]')) {
      const button = tab.querySelector('button');
      if (!button) continue;
      button.setAttribute('role', 'tab');
      button.setAttribute('aria-selected', tab.getAttribute('aria-selected') ?? 'false');
      tab.setAttribute('role', 'presentation');
      tab.removeAttribute('aria-selected');
    }
  };
  repair();
  new MutationObserver(repair).observe(root, {
    subtree: true,
    childList: true,
    attributes: true,
    attributeFilter: ['aria-selected'],
  });
}
