// A module whose finish() returns a function: not structured-clonable, so it
// cannot be reported to the main thread.
export default function () {
  return 1;
}

export function finish() {
  return () => 1;
}
