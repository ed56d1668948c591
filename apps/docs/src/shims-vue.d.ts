// Single-file components are compiled by VitePress's Vue plugin; tsc only needs their shape.
declare module "*.vue" {
  import type { DefineComponent } from "vue";

  const component: DefineComponent<object, object, unknown>;
  export default component;
}
