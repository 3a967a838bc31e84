// Curated tasks: geometry (Go). Expected values are computed by data/tasks/curated-langs.mjs from the
// canonicals (one `go build` per task); a call written {args, expected} is a hand-typed spot check.
const go = String.raw;
const P = (X, Y) => ({ X, Y });
const square = [P(0, 0), P(4, 0), P(4, 4), P(0, 4)];
const ell = [P(0, 0), P(4, 0), P(4, 2), P(2, 2), P(2, 4), P(0, 4)];
export default [
  {
    name: 'Turn',
    query: 'Say whether the path a -> b -> c turns "left" (counter-clockwise), "right" (clockwise) or is "collinear", from the sign of the cross product.',
    code: go`
type Point struct {
	X, Y float64
}

func Turn(a, b, c Point) string {
	cross := (b.X-a.X)*(c.Y-a.Y) - (b.Y-a.Y)*(c.X-a.X)
	if cross > 0 {
		return "left"
	}
	if cross < 0 {
		return "right"
	}
	return "collinear"
}`,
    calls: [{ args: [P(0, 0), P(1, 0), P(1, 1)], expected: 'left' }, [P(0, 0), P(1, 0), P(1, -1)], [P(0, 0), P(1, 1), P(2, 2)], [P(0, 0), P(1, 1), P(3, 2)], [P(0, 0), P(1, 1), P(1, 2)], [P(1, 1), P(1, 1), P(2, 5)], [P(0, 0), P(2, 0), P(-1, 0)], [P(-1, -1), P(-2, 3), P(0, 0)]],
  },
  {
    name: 'InsidePolygon',
    query: 'Decide whether a point lies inside a simple polygon by ray casting, counting points on an edge or vertex as inside; a polygon with fewer than three vertices contains nothing.',
    code: go`
import "math"

type Point struct {
	X, Y float64
}

func InsidePolygon(p Point, poly []Point) bool {
	n := len(poly)
	if n < 3 {
		return false
	}
	inside := false
	for i, j := 0, n-1; i < n; j, i = i, i+1 {
		a, b := poly[i], poly[j]
		cross := (b.X-a.X)*(p.Y-a.Y) - (b.Y-a.Y)*(p.X-a.X)
		if cross == 0 && math.Min(a.X, b.X) <= p.X && p.X <= math.Max(a.X, b.X) && math.Min(a.Y, b.Y) <= p.Y && p.Y <= math.Max(a.Y, b.Y) {
			return true
		}
		if (a.Y > p.Y) != (b.Y > p.Y) && p.X < (b.X-a.X)*(p.Y-a.Y)/(b.Y-a.Y)+a.X {
			inside = !inside
		}
	}
	return inside
}`,
    calls: [{ args: [P(2, 2), square], expected: true }, [P(5, 2), square], [P(4, 2), square], [P(0, 0), square], [P(2, -1), square], [P(3, 3), ell], [P(1, 3), ell], [P(3, 1), ell], [P(1, 1), [P(0, 0), P(2, 2)]], [P(3, 2), [P(0, 0), P(6, 0), P(3, 3)]]],
  },
  {
    name: 'LineIntersection',
    query: 'Return the intersection point of the two infinite lines through a1-a2 and b1-b2; parallel or identical lines return an error.',
    approx: 1e-9,
    code: go`
import "errors"

type Point struct {
	X, Y float64
}

func LineIntersection(a1, a2, b1, b2 Point) (Point, error) {
	d := (a1.X-a2.X)*(b1.Y-b2.Y) - (a1.Y-a2.Y)*(b1.X-b2.X)
	if d == 0 {
		return Point{}, errors.New("lines are parallel")
	}
	ca := a1.X*a2.Y - a1.Y*a2.X
	cb := b1.X*b2.Y - b1.Y*b2.X
	x := (ca*(b1.X-b2.X) - (a1.X-a2.X)*cb) / d
	y := (ca*(b1.Y-b2.Y) - (a1.Y-a2.Y)*cb) / d
	return Point{X: x, Y: y}, nil
}`,
    calls: [{ args: [P(0, 0), P(4, 4), P(0, 4), P(4, 0)], expected: P(2, 2) }, [P(0, 0), P(1, 0), P(3, 5), P(3, 7)], [P(0, 0), P(1, 1), P(0, 1), P(1, 2)], [P(0, 0), P(1, 1), P(2, 2), P(3, 3)], [P(0, 0), P(1, 2), P(0, 3), P(1, 2)], [P(-1, 0), P(1, 0), P(0, -5), P(0, -4)], [P(0, 1), P(2, 2), P(0, 4), P(1, 2)], [P(1, 1), P(2, 3), P(5, 0), P(5, 1)]],
  },
  {
    name: 'Perimeter',
    query: 'Return the perimeter of a closed polygon, including the edge from the last vertex back to the first (two points give twice their distance); fewer than two points give 0.',
    approx: 1e-9,
    code: go`
import "math"

type Point struct {
	X, Y float64
}

func Perimeter(poly []Point) float64 {
	if len(poly) < 2 {
		return 0
	}
	total := 0.0
	for i := range poly {
		j := (i + 1) % len(poly)
		total += math.Hypot(poly[j].X-poly[i].X, poly[j].Y-poly[i].Y)
	}
	return total
}`,
    calls: [[[]], [[P(3, 3)]], { args: [[P(0, 0), P(3, 4)]], expected: 10 }, [square], [[P(0, 0), P(3, 0), P(0, 4)]], [ell], [[P(1, 1), P(1, 1), P(1, 1)]], [[P(-1, -1), P(1, -1), P(1, 1), P(-1, 1)]]],
  },
  {
    name: 'Intersection',
    query: 'Intersect two axis-aligned rectangles {MinX, MinY, MaxX, MaxY}, returning the overlap and true, or a zero rectangle and false when they only touch or do not overlap.',
    code: go`
import "math"

type Rect struct {
	MinX, MinY, MaxX, MaxY float64
}

func Intersection(a, b Rect) (Rect, bool) {
	r := Rect{
		MinX: math.Max(a.MinX, b.MinX),
		MinY: math.Max(a.MinY, b.MinY),
		MaxX: math.Min(a.MaxX, b.MaxX),
		MaxY: math.Min(a.MaxY, b.MaxY),
	}
	if r.MinX >= r.MaxX || r.MinY >= r.MaxY {
		return Rect{}, false
	}
	return r, true
}`,
    calls: [
      { args: [{ MinX: 0, MinY: 0, MaxX: 4, MaxY: 4 }, { MinX: 2, MinY: 2, MaxX: 6, MaxY: 6 }], expected: [{ MinX: 2, MinY: 2, MaxX: 4, MaxY: 4 }, true] },
      [{ MinX: 0, MinY: 0, MaxX: 4, MaxY: 4 }, { MinX: 4, MinY: 0, MaxX: 6, MaxY: 4 }],
      [{ MinX: 0, MinY: 0, MaxX: 4, MaxY: 4 }, { MinX: 0, MinY: 4, MaxX: 4, MaxY: 6 }],
      [{ MinX: 0, MinY: 0, MaxX: 4, MaxY: 4 }, { MinX: 5, MinY: 5, MaxX: 6, MaxY: 6 }],
      [{ MinX: 0, MinY: 0, MaxX: 10, MaxY: 10 }, { MinX: 2, MinY: 3, MaxX: 4, MaxY: 5 }],
      [{ MinX: -3, MinY: -3, MaxX: 1, MaxY: 1 }, { MinX: -1, MinY: -5, MaxX: 3, MaxY: 0 }],
      [{ MinX: 0, MinY: 0, MaxX: 4, MaxY: 4 }, { MinX: 1, MinY: -2, MaxX: 3, MaxY: 8 }],
      [{ MinX: 0, MinY: 0, MaxX: 2, MaxY: 2 }, { MinX: 1.5, MinY: 1.5, MaxX: 2.5, MaxY: 2.5 }],
    ],
  },
  {
    name: 'AngleDegrees',
    query: 'Return the angle in degrees (0 to 180) between two vectors given as points; a zero-length vector returns an error.',
    approx: 1e-9,
    code: go`
import (
	"errors"
	"math"
)

type Point struct {
	X, Y float64
}

func AngleDegrees(u, v Point) (float64, error) {
	nu := math.Hypot(u.X, u.Y)
	nv := math.Hypot(v.X, v.Y)
	if nu == 0 || nv == 0 {
		return 0, errors.New("zero-length vector")
	}
	cos := (u.X*v.X + u.Y*v.Y) / (nu * nv)
	cos = math.Max(-1, math.Min(1, cos))
	return math.Acos(cos) * 180 / math.Pi, nil
}`,
    calls: [{ args: [P(1, 0), P(0, 1)], expected: 90 }, [P(1, 0), P(1, 0)], [P(1, 0), P(-1, 0)], [P(1, 1), P(1, 0)], [P(0, 0), P(1, 0)], [P(2, 0), P(0, 0)], [P(3, 4), P(-4, 3)], [P(1, 0), P(1, -1)], [P(1, 0), P(-1, 1)]],
  },
];
