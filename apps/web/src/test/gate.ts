/** A server stand-in's answer held until the test lets it go: a request stays in flight for as long
 * as the test needs it to (until a second click has landed), not for a guessed number of ms. */
export function gate(): { passed: Promise<void>; open: () => void } {
  let open: () => void = () => {};
  const passed = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { passed, open };
}
