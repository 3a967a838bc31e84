// Curated tasks: date_time (Go). Expected values are computed by data/tasks/curated-langs.mjs from the
// canonicals (one `go build` per task); a call written {args, expected} is a hand-typed spot check.
const go = String.raw;
export default [
  {
    name: 'DaysUntil',
    query: 'Return how many days from a "YYYY-MM-DD" date until the next given weekday name (case-insensitive), 0 when the date already is that weekday; an invalid date or weekday name returns an error.',
    code: go`
import (
	"fmt"
	"strings"
	"time"
)

func DaysUntil(date string, weekday string) (int, error) {
	t, err := time.Parse("2006-01-02", date)
	if err != nil {
		return 0, err
	}
	names := []string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
	for i, name := range names {
		if strings.EqualFold(name, weekday) {
			return (i - int(t.Weekday()) + 7) % 7, nil
		}
	}
	return 0, fmt.Errorf("unknown weekday %q", weekday)
}`,
    calls: [{ args: ['2026-12-04', 'Friday'], expected: 0 }, ['2026-12-04', 'saturday'], ['2026-12-04', 'Thursday'], { args: ['2026-12-04', 'Monday'], expected: 3 }, ['2026-12-06', 'Sunday'], ['2026-12-06', 'Saturday'], ['2026-02-30', 'Monday'], ['2026-12-04', 'Funday'], ['2024-02-29', 'Thursday']],
  },
  {
    name: 'FormatDuration',
    query: 'Format a number of seconds as "1d 2h 3m 4s", leaving out zero units and giving "0s" for zero; a negative duration returns an error.',
    code: go`
import (
	"errors"
	"strconv"
	"strings"
)

func FormatDuration(seconds int) (string, error) {
	if seconds < 0 {
		return "", errors.New("negative duration")
	}
	if seconds == 0 {
		return "0s", nil
	}
	units := []struct {
		name string
		size int
	}{{"d", 86400}, {"h", 3600}, {"m", 60}, {"s", 1}}
	parts := []string{}
	for _, u := range units {
		if n := seconds / u.size; n > 0 {
			parts = append(parts, strconv.Itoa(n)+u.name)
			seconds -= n * u.size
		}
	}
	return strings.Join(parts, " "), nil
}`,
    calls: [[0], [1], [59], [60], [61], [3600], { args: [3661], expected: '1h 1m 1s' }, [86400], [90061], [-5]],
  },
  {
    name: 'CalendarRows',
    query: 'Return how many week rows a Monday-first month calendar needs for the given year and month (4 to 6); a month outside 1..12 returns an error.',
    code: go`
import (
	"fmt"
	"time"
)

func CalendarRows(year, month int) (int, error) {
	if month < 1 || month > 12 {
		return 0, fmt.Errorf("month %d out of range", month)
	}
	first := time.Date(year, time.Month(month), 1, 0, 0, 0, 0, time.UTC)
	days := first.AddDate(0, 1, -1).Day()
	offset := (int(first.Weekday()) + 6) % 7
	return (offset + days + 6) / 7, nil
}`,
    calls: [{ args: [2026, 12], expected: 5 }, [2026, 2], { args: [2021, 2], expected: 4 }, [2026, 3], [2024, 2], [2026, 0], [2026, 13], [2027, 1], [2015, 2], [2026, 8]],
  },
  {
    name: 'ShiftClock',
    query: 'Convert an "HH:MM" wall-clock time from one UTC offset (in hours) to another, wrapping around midnight, and format it as "HH:MM"; a malformed or out-of-range time returns an error.',
    code: go`
import "fmt"

func ShiftClock(clock string, fromOffset, toOffset int) (string, error) {
	var h, m int
	if _, err := fmt.Sscanf(clock, "%d:%d", &h, &m); err != nil {
		return "", err
	}
	if h < 0 || h > 23 || m < 0 || m > 59 {
		return "", fmt.Errorf("bad clock %q", clock)
	}
	total := h*60 + m + (toOffset-fromOffset)*60
	total = ((total % 1440) + 1440) % 1440
	return fmt.Sprintf("%02d:%02d", total/60, total%60), nil
}`,
    calls: [{ args: ['12:00', 0, 2], expected: '14:00' }, ['23:30', 0, 1], ['00:15', 1, 0], ['09:45', -5, 9], ['12:00', 3, 3], ['24:00', 0, 0], ['12:60', 0, 0], ['noon', 0, 0], ['05:07', 2, -3], ['00:00', 0, -1]],
  },
  {
    name: 'QuarterBounds',
    query: 'Return the first and last dates ("YYYY-MM-DD") of a calendar quarter 1-4 of a year; any other quarter returns an error.',
    code: go`
import (
	"fmt"
	"time"
)

func QuarterBounds(year, quarter int) ([]string, error) {
	if quarter < 1 || quarter > 4 {
		return nil, fmt.Errorf("quarter %d out of range", quarter)
	}
	start := time.Date(year, time.Month(3*quarter-2), 1, 0, 0, 0, 0, time.UTC)
	end := start.AddDate(0, 3, -1)
	return []string{start.Format("2006-01-02"), end.Format("2006-01-02")}, nil
}`,
    calls: [{ args: [2026, 1], expected: ['2026-01-01', '2026-03-31'] }, [2026, 2], [2026, 3], [2026, 4], [2024, 1], [2026, 0], [2026, 5], [1999, 4], [2000, 2]],
  },
  {
    name: 'BusiestHour',
    query: 'Return the UTC hour (0-23) in which most of the given RFC 3339 timestamps fall, the earliest hour on ties; an empty list or an unparseable timestamp returns an error.',
    code: go`
import (
	"errors"
	"time"
)

func BusiestHour(timestamps []string) (int, error) {
	if len(timestamps) == 0 {
		return 0, errors.New("no timestamps")
	}
	var counts [24]int
	for _, ts := range timestamps {
		t, err := time.Parse(time.RFC3339, ts)
		if err != nil {
			return 0, err
		}
		counts[t.UTC().Hour()]++
	}
	best := 0
	for h := 1; h < 24; h++ {
		if counts[h] > counts[best] {
			best = h
		}
	}
	return best, nil
}`,
    calls: [
      [['2026-12-04T10:00:00Z']],
      { args: [['2026-12-04T10:00:00+02:00']], expected: 8 },
      [['2026-12-04T10:05:00Z', '2026-12-04T10:59:00Z', '2026-12-04T11:00:00Z']],
      [['2026-12-04T09:00:00Z', '2026-12-04T11:00:00Z']],
      [['2026-12-04T23:59:59Z', '2026-12-04T23:00:00Z', '2026-12-04T00:00:00Z']],
      [[]],
      [['yesterday']],
      [['2026-12-04T00:30:00-01:00']],
      [['2026-12-04T01:00:00Z', '2026-12-04T00:10:00Z', '2026-12-04T01:20:00Z']],
    ],
  },
];
