import type { Theme } from "vitepress";
import DefaultTheme from "vitepress/theme";
import Playground from "../../components/Playground.vue";

/** The default theme, plus the playground component for playground.md. */
const theme: Theme = {
  extends: DefaultTheme,
  enhanceApp({ app }) {
    app.component("Playground", Playground);
  },
};
export default theme;
