// Arithmetic on attention maps of every layer and head, { data: Float32Array, shape: [layers,
// heads, rows, cols] } as model.attentions() returns them: one head's map, the mean over a
// layer's heads, and attention rollout. Pure functions, tested in tests/js/maps.test.mjs.

// The map of layer l, head h: a view into data, not a copy.
export function slice({ data, shape: [, heads, rows, cols] }, l, h) {
  const size = rows * cols, at = (l * heads + h) * size;
  return data.subarray(at, at + size);
}

// The mean over the heads of layer l.
export function meanOverHeads(map, l) {
  const [, heads, rows, cols] = map.shape;
  const mean = new Float32Array(rows * cols);
  for (let h = 0; h < heads; h++) {
    const one = slice(map, l, h);
    for (let i = 0; i < mean.length; i++) mean[i] += one[i] / heads;
  }
  return mean;
}

// Attention rollout (Abnar & Zuidema 2020) of self-attention [layers][heads][n][n]: each layer's
// mean over heads with the residual connection, Ã = ½A + ½I, rows renormalized, multiplied down the
// layers: R_1 = Ã_1, R_l = Ã_l R_(l-1). Returns R_l for every layer, each [n][n] with rows summing to
// 1 (a row of zeros, a position that saw nothing, keeps only the residual).
export function rollout(map) {
  const [layers, , n, cols] = map.shape;
  if (n !== cols) throw new Error(`rollout needs square self-attention maps, got ${n} × ${cols}`);
  const result = [];
  let previous = null;
  for (let l = 0; l < layers; l++) {
    const a = meanOverHeads(map, l);
    for (let i = 0; i < n; i++) {
      let sum = 0;
      for (let j = 0; j < n; j++) {
        a[i * n + j] = 0.5 * a[i * n + j] + (i === j ? 0.5 : 0);
        sum += a[i * n + j];
      }
      for (let j = 0; j < n; j++) a[i * n + j] /= sum;
    }
    if (previous) {
      const product = new Float32Array(n * n);
      for (let i = 0; i < n; i++) {
        for (let k = 0; k < n; k++) {
          const x = a[i * n + k];
          if (x === 0) continue;
          for (let j = 0; j < n; j++) product[i * n + j] += x * previous[k * n + j];
        }
      }
      previous = product;
    } else {
      previous = a;
    }
    result.push(previous);
  }
  return result;
}
