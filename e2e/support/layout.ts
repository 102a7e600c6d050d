import type { Page } from 'playwright-core';

/**
 * Texts inside `scope` that a person cannot read whole: clipped by their box, ended with an
 * ellipsis, or sticking out of the screen. What sticks out of the screen inside a scrolling
 * container (a wide table) is reachable by scrolling and does not count; a text cut off there is
 * cut off all the same. An ellipsis shows as soon as a text is wider than its box by any fraction
 * of a pixel ("Aktiv" needed 38 px and got 37: "AKT…"). A list's cell cut on purpose, whose whole text
 * shows on hover and keyboard focus (DataTable's TruncatedText, marked `data-truncated`), is not lost.
 */
export async function cutOff(page: Page, scope: string): Promise<string[]> {
  return page.evaluate((selector) => {
    type Box = {
      scrollWidth: number;
      clientWidth: number;
      textContent: string | null;
      parentElement: Box | null;
      closest(selector: string): Box | null;
      getBoundingClientRect(): { right: number; width: number; height: number };
    };
    const view = globalThis as unknown as {
      innerWidth: number;
      document: { querySelectorAll(selector: string): ArrayLike<Box> };
      getComputedStyle(element: Box): { overflowX: string; textOverflow: string; visibility: string; display: string };
    };
    const scrolls = (element: Box) => ['auto', 'scroll'].includes(view.getComputedStyle(element).overflowX);
    const insideScroller = (element: Box) => {
      for (let parent = element.parentElement; parent; parent = parent.parentElement) if (scrolls(parent)) return true;
      return false;
    };
    const found: string[] = [];
    for (const element of Array.from(view.document.querySelectorAll(`${selector} *`))) {
      const style = view.getComputedStyle(element);
      const box = element.getBoundingClientRect();
      // A text for screen readers only sits in a box of one pixel (Mantine's VisuallyHidden): nobody is meant to see it.
      if (!element.textContent?.trim() || style.visibility === 'hidden' || style.display === 'none' || box.width <= 1 || box.height <= 1) continue;
      if (scrolls(element) || element.closest('[data-truncated]')) continue;
      const clipped =
        style.textOverflow === 'ellipsis' ? element.scrollWidth > element.clientWidth : ['hidden', 'clip'].includes(style.overflowX) && element.scrollWidth > element.clientWidth + 1;
      const outside = !insideScroller(element) && box.right > view.innerWidth + 1;
      if (clipped || outside) found.push(element.textContent.trim().slice(0, 60));
    }
    return found;
  }, scope);
}

/** The links, buttons and fields inside `container` that reach out of its box (a menu wrapped onto a second row of a header). */
export async function outsideOf(page: Page, container: string): Promise<string[]> {
  return page.evaluate((selector) => {
    type Rect = { top: number; bottom: number; right: number; width: number };
    type Element = { textContent: string | null; getBoundingClientRect(): Rect; querySelectorAll(selector: string): ArrayLike<Element> };
    const view = globalThis as unknown as { document: { querySelector(selector: string): Element | null } };
    const box = view.document.querySelector(selector);
    if (!box) return [`no ${selector}`];
    const outer = box.getBoundingClientRect();
    return Array.from(box.querySelectorAll('a, button, select'))
      .filter((element) => {
        const inner = element.getBoundingClientRect();
        return inner.width > 0 && (inner.top < outer.top || inner.bottom > outer.bottom || inner.right > outer.right);
      })
      .map((element) => (element.textContent ?? '').trim());
  }, container);
}
