// Every figure of the page, from one import: the painter (painters.mjs), the canvas host
// (canvas.mjs), the heatmap (heatmap.mjs) and the line view (line-view.mjs). heatmapOf(element)
// gives the figure drawn in a host element (for the exports and the tests).
export * from './painters.mjs';
export { CanvasSurface, heatmapOf } from './canvas.mjs';
export { Heatmap } from './heatmap.mjs';
export { LineView } from './line-view.mjs';
