"""Curated tasks: geometry. Expected values are computed by build.py from the canonicals."""

TASKS = [
    dict(
        name='polygon_area',
        query='Compute the area of a simple polygon from its list of (x, y) vertices with the shoelace formula; '
              'fewer than three vertices give 0.0.',
        code='''
            def polygon_area(points):
                n = len(points)
                if n < 3:
                    return 0.0
                total = 0
                for i in range(n):
                    x1, y1 = points[i]
                    x2, y2 = points[(i + 1) % n]
                    total += x1 * y2 - x2 * y1
                return abs(total) / 2
        ''',
        calls=['polygon_area([])', 'polygon_area([(0, 0), (1, 1)])', 'polygon_area([(0, 0), (4, 0), (0, 3)])',
               'polygon_area([(0, 0), (2, 0), (2, 2), (0, 2)])', 'polygon_area([(0, 0), (0, 2), (2, 2), (2, 0)])',
               'polygon_area([(0, 0), (4, 0), (4, 3), (0, 3)])', 'polygon_area([(0, 0), (2, 0), (1, 1)])',
               'polygon_area([(0, 0), (3, 0), (3, 1), (1, 1), (1, 3), (0, 3)])'],
    ),
    dict(
        name='point_in_rect',
        query='Check whether a point (x, y) lies inside an axis-aligned rectangle given by its left, bottom, '
              'right and top edges, counting points on the border as inside.',
        code='''
            def point_in_rect(x, y, left, bottom, right, top):
                return left <= x <= right and bottom <= y <= top
        ''',
        calls=['point_in_rect(1, 1, 0, 0, 2, 2)', 'point_in_rect(0, 1, 0, 0, 2, 2)', 'point_in_rect(2, 1, 0, 0, 2, 2)',
               'point_in_rect(1, 0, 0, 0, 2, 2)', 'point_in_rect(1, 2, 0, 0, 2, 2)', 'point_in_rect(3, 1, 0, 0, 2, 2)',
               'point_in_rect(1, -1, 0, 0, 2, 2)', 'point_in_rect(-1, 1, 0, 0, 2, 2)',
               'point_in_rect(1, 3, 0, 0, 2, 2)'],
    ),
    dict(
        name='segments_intersect',
        query='Determine whether two line segments, each given by two endpoints, intersect or touch, '
              'including collinear overlaps.',
        code='''
            def segments_intersect(p1, p2, p3, p4):
                def orient(a, b, c):
                    v = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
                    return (v > 0) - (v < 0)

                def on_segment(a, b, c):
                    return min(a[0], b[0]) <= c[0] <= max(a[0], b[0]) and min(a[1], b[1]) <= c[1] <= max(a[1], b[1])

                d1 = orient(p3, p4, p1)
                d2 = orient(p3, p4, p2)
                d3 = orient(p1, p2, p3)
                d4 = orient(p1, p2, p4)
                if d1 * d2 < 0 and d3 * d4 < 0:
                    return True
                if d1 == 0 and on_segment(p3, p4, p1):
                    return True
                if d2 == 0 and on_segment(p3, p4, p2):
                    return True
                if d3 == 0 and on_segment(p1, p2, p3):
                    return True
                if d4 == 0 and on_segment(p1, p2, p4):
                    return True
                return False
        ''',
        calls=['segments_intersect((0, 0), (4, 4), (0, 4), (4, 0))', 'segments_intersect((0, 0), (4, 0), (0, 1), (4, 1))',
               'segments_intersect((0, 0), (4, 0), (2, 0), (2, 3))', 'segments_intersect((0, 0), (4, 0), (2, 0), (6, 0))',
               'segments_intersect((0, 0), (2, 0), (3, 0), (5, 0))', 'segments_intersect((0, 0), (2, 2), (2, 2), (3, 0))',
               'segments_intersect((0, 0), (1, 1), (2, 0), (3, 5))', 'segments_intersect((0, 0), (2, 0), (2, 0), (5, 0))',
               'segments_intersect((2, 3), (2, 0), (0, 0), (4, 0))', 'segments_intersect((0, 0), (0, 4), (1, 1), (3, 3))'],
    ),
    dict(
        name='nearest_point_index',
        query='Find the index of the point closest (Euclidean distance) to a target point, preferring the earliest '
              'on ties; -1 for an empty list.',
        code='''
            def nearest_point_index(points, target):
                best = -1
                best_d = None
                tx, ty = target
                for i, (x, y) in enumerate(points):
                    d = (x - tx) ** 2 + (y - ty) ** 2
                    if best_d is None or d < best_d:
                        best, best_d = i, d
                return best
        ''',
        calls=['nearest_point_index([], (0, 0))', 'nearest_point_index([(1, 1)], (0, 0))',
               'nearest_point_index([(5, 5), (1, 1), (2, 2)], (0, 0))', 'nearest_point_index([(1, 0), (0, 1)], (0, 0))',
               'nearest_point_index([(0, 0), (3, 4)], (3, 3))', 'nearest_point_index([(-2, 0), (3, 0)], (0, 0))',
               'nearest_point_index([(1, 2), (2, 1)], (2, 2))', 'nearest_point_index([(4, 4), (0, 3), (3, 0)], (1, 1))'],
    ),
    dict(
        name='classify_triangle',
        query='Classify a triangle from its three side lengths as "equilateral", "isosceles", "scalene" '
              'or "invalid" (non-positive sides or violating the triangle inequality).',
        code='''
            def classify_triangle(a, b, c):
                x, y, z = sorted((a, b, c))
                if x <= 0 or x + y <= z:
                    return 'invalid'
                if x == z:
                    return 'equilateral'
                if x == y or y == z:
                    return 'isosceles'
                return 'scalene'
        ''',
        calls=['classify_triangle(3, 3, 3)', 'classify_triangle(3, 3, 5)', 'classify_triangle(3, 5, 5)',
               'classify_triangle(3, 4, 5)', 'classify_triangle(1, 2, 3)', 'classify_triangle(0, 0, 0)',
               'classify_triangle(-1, 2, 2)', 'classify_triangle(5, 2, 2)', 'classify_triangle(7, 5, 3)',
               'classify_triangle(4, 2, 2)'],
    ),
    dict(
        name='rect_overlap_area',
        query='Compute the area of the intersection of two axis-aligned rectangles given as (x1, y1, x2, y2) '
              'corner tuples; 0 if they do not overlap.',
        code='''
            def rect_overlap_area(a, b):
                width = min(a[2], b[2]) - max(a[0], b[0])
                height = min(a[3], b[3]) - max(a[1], b[1])
                if width <= 0 or height <= 0:
                    return 0
                return width * height
        ''',
        calls=['rect_overlap_area((0, 0, 2, 2), (1, 1, 3, 3))', 'rect_overlap_area((0, 0, 2, 2), (2, 0, 4, 2))',
               'rect_overlap_area((0, 0, 2, 2), (3, 3, 4, 4))', 'rect_overlap_area((0, 0, 4, 4), (1, 1, 2, 2))',
               'rect_overlap_area((0, 0, 3, 2), (1, -1, 5, 1))', 'rect_overlap_area((0, 0, 5, 5), (0, 0, 5, 5))',
               'rect_overlap_area((0, 0, 2, 2), (-1, -1, 1, 3))', 'rect_overlap_area((0, 0, 2, 2), (0, 3, 2, 5))',
               'rect_overlap_area((0, 0, 2, 2), (-5, 0, -1, 2))'],
    ),
    dict(
        name='convex_hull',
        query="Compute the convex hull of a set of 2D points with Andrew's monotone chain, returning the hull "
              'vertices counter-clockwise starting from the leftmost (then lowest) point, without collinear points.',
        code='''
            def convex_hull(points):
                pts = sorted(set(points))
                if len(pts) <= 2:
                    return pts

                def cross(o, a, b):
                    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

                lower = []
                for p in pts:
                    while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
                        lower.pop()
                    lower.append(p)
                upper = []
                for p in reversed(pts):
                    while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
                        upper.pop()
                    upper.append(p)
                return lower[:-1] + upper[:-1]
        ''',
        calls=['convex_hull([])', 'convex_hull([(1, 1)])', 'convex_hull([(0, 0), (1, 1), (0, 0)])',
               'convex_hull([(0, 0), (2, 0), (2, 2), (0, 2), (1, 1)])', 'convex_hull([(0, 0), (1, 1), (2, 2)])',
               'convex_hull([(0, 0), (4, 0), (2, 3)])', 'convex_hull([(0, 0), (1, 0), (2, 0), (2, 1), (0, 1)])',
               'convex_hull([(3, 1), (0, 0), (1, 4), (2, 2), (-1, 2), (1, -2)])'],
    ),
    dict(
        name='lattice_points_on_segment',
        query='Count the integer-coordinate points lying on the line segment between two integer points, '
              'endpoints included.',
        code='''
            def lattice_points_on_segment(p, q):
                dx = abs(q[0] - p[0])
                dy = abs(q[1] - p[1])
                while dy:
                    dx, dy = dy, dx % dy
                return dx + 1
        ''',
        calls=['lattice_points_on_segment((0, 0), (0, 0))', 'lattice_points_on_segment((0, 0), (4, 0))',
               'lattice_points_on_segment((0, 0), (3, 3))', 'lattice_points_on_segment((0, 0), (4, 6))',
               'lattice_points_on_segment((1, 1), (-2, -5))', 'lattice_points_on_segment((0, 0), (0, 7))',
               'lattice_points_on_segment((2, 3), (7, 3))', 'lattice_points_on_segment((0, 0), (5, 3))',
               'lattice_points_on_segment((0, 0), (6, 4))'],
    ),
    dict(
        name='is_convex_polygon',
        query='Check whether a polygon given as an ordered list of vertices is convex (all turns in the same '
              'direction; collinear vertices allowed, degenerate polygons are not convex).',
        code='''
            def is_convex_polygon(points):
                n = len(points)
                if n < 3:
                    return False
                sign = 0
                for i in range(n):
                    ax, ay = points[i]
                    bx, by = points[(i + 1) % n]
                    cx, cy = points[(i + 2) % n]
                    cross = (bx - ax) * (cy - by) - (by - ay) * (cx - bx)
                    if cross != 0:
                        if sign == 0:
                            sign = 1 if cross > 0 else -1
                        elif (cross > 0) != (sign > 0):
                            return False
                return sign != 0
        ''',
        calls=['is_convex_polygon([(0, 0), (2, 0), (2, 2), (0, 2)])', 'is_convex_polygon([(0, 0), (4, 0), (2, 3)])',
               'is_convex_polygon([(0, 0), (0, 2), (2, 2), (2, 0)])',
               'is_convex_polygon([(0, 0), (4, 0), (2, 1), (4, 4), (0, 4)])', 'is_convex_polygon([(0, 0), (1, 1)])',
               'is_convex_polygon([(0, 0), (1, 0), (2, 0)])', 'is_convex_polygon([(0, 0), (1, 0), (2, 0), (2, 2), (0, 2)])',
               'is_convex_polygon([])', 'is_convex_polygon([(0, 0), (2, 2), (2, 0), (0, 2)])'],
    ),
    dict(
        name='circle_intersection_count',
        query='Count the intersection points of two circles given by integer centres and radii: 0, 1 (tangent), '
              '2, or -1 when the circles coincide.',
        code='''
            def circle_intersection_count(x1, y1, r1, x2, y2, r2):
                d2 = (x2 - x1) ** 2 + (y2 - y1) ** 2
                if d2 == 0 and r1 == r2:
                    return -1
                outer = (r1 + r2) ** 2
                inner = (r1 - r2) ** 2
                if d2 > outer or d2 < inner:
                    return 0
                if d2 == outer or d2 == inner:
                    return 1
                return 2
        ''',
        calls=['circle_intersection_count(0, 0, 1, 0, 0, 1)', 'circle_intersection_count(0, 0, 1, 5, 0, 1)',
               'circle_intersection_count(0, 0, 2, 4, 0, 2)', 'circle_intersection_count(0, 0, 2, 3, 0, 2)',
               'circle_intersection_count(0, 0, 5, 1, 0, 1)', 'circle_intersection_count(0, 0, 5, 3, 0, 2)',
               'circle_intersection_count(0, 0, 3, 0, 0, 1)', 'circle_intersection_count(0, 0, 5, 3, 4, 5)',
               'circle_intersection_count(1, 1, 2, 1, 4, 1)'],
    ),
]
