// Curated tasks: geometry (JavaScript and TypeScript). Expected values are computed by
// data/tasks/curated-langs.mjs from the canonicals; a call written {args, expected} is a hand-typed spot check.
export default [
  {
    lang: 'javascript',
    name: 'boundingBox',
    query: 'Return the axis-aligned bounding box [minX, minY, maxX, maxY] of a list of [x, y] points, or null for an empty list.',
    code: `
function boundingBox(points) {
  if (points.length === 0) return null;
  let [minX, minY] = points[0];
  let [maxX, maxY] = points[0];
  for (const [x, y] of points) {
    if (x < minX) minX = x;
    if (x > maxX) maxX = x;
    if (y < minY) minY = y;
    if (y > maxY) maxY = y;
  }
  return [minX, minY, maxX, maxY];
}`,
    calls: [[[]], [[[1, 2]]], [[[0, 0], [2, 3]]], [[[2, 3], [0, 0]]], { args: [[[-1, 5], [3, -2], [0, 0]]], expected: [-1, -2, 3, 5] }, [[[1, 1], [1, 1]]], [[[0, 5], [5, 0]]], [[[3, 3], [1, 4], [2, 0]]]],
  },
  {
    lang: 'javascript',
    name: 'pathLength',
    query: 'Return the total Euclidean length of a polyline through a list of [x, y] points; fewer than two points give 0.',
    approx: 1e-9,
    code: `
function pathLength(points) {
  let total = 0;
  for (let i = 1; i < points.length; i++) {
    const dx = points[i][0] - points[i - 1][0];
    const dy = points[i][1] - points[i - 1][1];
    total += Math.hypot(dx, dy);
  }
  return total;
}`,
    calls: [[[]], [[[1, 1]]], { args: [[[0, 0], [3, 4]]], expected: 5 }, [[[0, 0], [3, 4], [3, 0]]], [[[0, 0], [1, 1]]], [[[1, 1], [1, 1]]], [[[-1, 0], [1, 0], [1, 2]]], [[[0, 0], [0, 1], [0, 3], [0, 6]]], [[[2, 1], [5, 5]]]],
  },
  {
    lang: 'javascript',
    name: 'closestPairDistance',
    query: 'Return the smallest Euclidean distance between any two of the given [x, y] points (0 when two coincide); fewer than two points throw a RangeError.',
    approx: 1e-9,
    code: `
function closestPairDistance(points) {
  if (points.length < 2) throw new RangeError('need at least two points');
  let best = Infinity;
  for (let i = 0; i < points.length; i++) {
    for (let j = i + 1; j < points.length; j++) {
      const d = Math.hypot(points[i][0] - points[j][0], points[i][1] - points[j][1]);
      if (d < best) best = d;
    }
  }
  return best;
}`,
    calls: [[[]], [[[0, 0]]], [[[0, 0], [3, 4]]], [[[0, 0], [10, 10], [1, 1]]], [[[5, 5], [5, 5], [0, 0]]], [[[0, 0], [0, 3], [0, 7]]], [[[-2, 0], [2, 0], [0, 1]]], { args: [[[1, 2], [4, 6], [7, 2], [4, 2]]], expected: 3 }, [[[0, 9], [0, 0], [0, 5]]]],
  },
  {
    lang: 'javascript',
    name: 'rotatePoint',
    query: 'Rotate a point [x, y] counter-clockwise about the origin by an angle in degrees, exactly for multiples of 90 and otherwise rounding each coordinate to six decimals.',
    code: `
function rotatePoint([x, y], degrees) {
  const d = ((degrees % 360) + 360) % 360;
  // Quarter turns are exact, without floating-point dust.
  if (d === 0) return [x, y];
  if (d === 90) return [-y, x];
  if (d === 180) return [-x, -y];
  if (d === 270) return [y, -x];
  const rad = (d * Math.PI) / 180;
  const cos = Math.cos(rad);
  const sin = Math.sin(rad);
  const round = (v) => Math.round(v * 1e6) / 1e6 + 0;
  return [round(x * cos - y * sin), round(x * sin + y * cos)];
}`,
    calls: [{ args: [[1, 0], 90], expected: [0, 1] }, [[1, 0], 180], [[1, 0], -90], [[0, 1], 90], [[2, 3], 0], [[1, 1], 45], [[3, 4], 360], [[1, 2], 270], [[2, 0], 30], [[0.5, 0.25], 450]],
  },
  {
    lang: 'typescript',
    name: 'circleIntersectsRect',
    query: 'Decide whether a circle {x, y, r} and an axis-aligned rectangle {left, bottom, right, top} overlap, touching at a single point counting as overlap.',
    code: `
interface Circle {
  x: number;
  y: number;
  r: number;
}

interface Rect {
  left: number;
  bottom: number;
  right: number;
  top: number;
}

function circleIntersectsRect(c: Circle, rect: Rect): boolean {
  const nx = Math.max(rect.left, Math.min(c.x, rect.right));
  const ny = Math.max(rect.bottom, Math.min(c.y, rect.top));
  const dx = c.x - nx;
  const dy = c.y - ny;
  return dx * dx + dy * dy <= c.r * c.r;
}`,
    calls: [
      { args: [{ x: 1, y: 1, r: 1 }, { left: 0, bottom: 0, right: 4, top: 4 }], expected: true },
      [{ x: -2, y: 2, r: 2 }, { left: 0, bottom: 0, right: 4, top: 4 }],
      [{ x: -2, y: 2, r: 1.9 }, { left: 0, bottom: 0, right: 4, top: 4 }],
      [{ x: 7, y: 8, r: 5 }, { left: 0, bottom: 0, right: 4, top: 4 }],
      [{ x: 7, y: 8, r: 4.9 }, { left: 0, bottom: 0, right: 4, top: 4 }],
      [{ x: 2, y: 9, r: 5 }, { left: 0, bottom: 0, right: 4, top: 4 }],
      [{ x: 2, y: -6, r: 5 }, { left: 0, bottom: 0, right: 4, top: 4 }],
      [{ x: 4, y: 4, r: 0 }, { left: 0, bottom: 0, right: 4, top: 4 }],
      [{ x: 10, y: 2, r: 5 }, { left: 0, bottom: 0, right: 4, top: 4 }],
    ],
  },
  {
    lang: 'typescript',
    name: 'centroid',
    query: 'Return the centroid [x, y] (mean of the coordinates) of a list of [x, y] points; an empty list throws a RangeError.',
    approx: 1e-9,
    code: `
function centroid(points: Array<[number, number]>): [number, number] {
  if (points.length === 0) throw new RangeError('no points');
  let sx = 0;
  let sy = 0;
  for (const [x, y] of points) {
    sx += x;
    sy += y;
  }
  return [sx / points.length, sy / points.length];
}`,
    calls: [[[]], [[[2, 3]]], { args: [[[0, 0], [4, 0], [4, 4], [0, 4]]], expected: [2, 2] }, [[[0, 0], [3, 0], [0, 3]]], [[[-1, -1], [1, 1]]], [[[1, 5], [1, 7]]], [[[0, 0], [0, 0], [9, 3]]], [[[2, 8], [6, 2]]]],
  },
  {
    lang: 'typescript',
    name: 'windingOrder',
    query: 'Say whether a polygon\'s vertices {x, y} run counter-clockwise ("ccw") or clockwise ("cw") from the sign of its shoelace area, or "degenerate" for fewer than three vertices or zero area.',
    code: `
type Point = { x: number; y: number };

function windingOrder(points: Point[]): 'cw' | 'ccw' | 'degenerate' {
  if (points.length < 3) return 'degenerate';
  let twiceArea = 0;
  for (let i = 0; i < points.length; i++) {
    const p = points[i];
    const q = points[(i + 1) % points.length];
    twiceArea += p.x * q.y - q.x * p.y;
  }
  if (twiceArea > 0) return 'ccw';
  if (twiceArea < 0) return 'cw';
  return 'degenerate';
}`,
    calls: [
      { args: [[{ x: 0, y: 0 }, { x: 1, y: 0 }, { x: 0, y: 1 }]], expected: 'ccw' },
      [[{ x: 0, y: 0 }, { x: 0, y: 1 }, { x: 1, y: 0 }]],
      [[{ x: 0, y: 0 }, { x: 1, y: 1 }]],
      [[]],
      [[{ x: 0, y: 0 }, { x: 1, y: 1 }, { x: 2, y: 2 }]],
      [[{ x: 0, y: 0 }, { x: 4, y: 0 }, { x: 4, y: 4 }, { x: 0, y: 4 }]],
      [[{ x: 0, y: 4 }, { x: 4, y: 4 }, { x: 4, y: 0 }, { x: 0, y: 0 }]],
      [[{ x: 2, y: 1 }, { x: 5, y: 1 }, { x: 5, y: 3 }, { x: 3, y: 3 }, { x: 3, y: 6 }, { x: 2, y: 6 }]],
      [[{ x: -1, y: -1 }, { x: -3, y: 2 }, { x: 1, y: 0 }]],
    ],
  },
];
