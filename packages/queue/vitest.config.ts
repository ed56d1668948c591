import { timeouts } from "@scanlab/test-config";
import { defineConfig } from "vitest/config";

// Timeouts catch hangs only (see @scanlab/test-config); tests that take longer
// than a few seconds alone set their own beside them.
export default defineConfig({ test: { ...timeouts } });
