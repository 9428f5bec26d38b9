import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';

/** A vega-lite chart as SVG, rendered in Node (vega's headless view): the bench needs no browser to draw. */
export function vegaLiteSvg(spec: TopLevelSpec): Promise<string> {
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  return view.toSVG();
}
