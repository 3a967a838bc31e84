"""Curated tasks: date and time. Expected values are computed by build.py from the canonicals
(and cross-checked against Python's datetime where one exists: see the comments)."""

TASKS = [
    dict(
        name='days_in_month',
        query='Return the number of days in a given month of a given year, accounting for Gregorian leap years; '
              '0 for an invalid month.',
        code='''
            def days_in_month(year, month):
                if month < 1 or month > 12:
                    return 0
                if month == 2:
                    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
                    return 29 if leap else 28
                if month in (4, 6, 9, 11):
                    return 30
                return 31
        ''',
        calls=['days_in_month(2024, 2)', 'days_in_month(2023, 2)', 'days_in_month(1900, 2)', 'days_in_month(2000, 2)',
               'days_in_month(2023, 4)', 'days_in_month(2023, 12)', 'days_in_month(2023, 13)', 'days_in_month(2023, 0)',
               'days_in_month(2023, 1)', 'days_in_month(2023, 11)'],
    ),
    dict(
        name='day_of_year',
        query='Compute the ordinal day of the year (1 to 366) for a year, month and day.',
        code='''
            def day_of_year(year, month, day):
                days = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
                if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0):
                    days[1] = 29
                return sum(days[:month - 1]) + day
        ''',
        # datetime.date(y, m, d).timetuple().tm_yday gives the same values.
        calls=['day_of_year(2023, 1, 1)', 'day_of_year(2023, 12, 31)', 'day_of_year(2024, 12, 31)',
               'day_of_year(2024, 3, 1)', 'day_of_year(2023, 3, 1)', 'day_of_year(1900, 3, 1)',
               'day_of_year(2000, 3, 1)', 'day_of_year(2023, 2, 28)', 'day_of_year(2023, 7, 4)'],
    ),
    dict(
        name='weekday_number',
        query='Compute the day of the week for a Gregorian date as a number with 0 = Sunday through 6 = Saturday, '
              "using Sakamoto's method.",
        code='''
            def weekday_number(year, month, day):
                offsets = [0, 3, 2, 5, 0, 3, 5, 1, 4, 6, 2, 4]
                if month < 3:
                    year -= 1
                return (year + year // 4 - year // 100 + year // 400 + offsets[month - 1] + day) % 7
        ''',
        # Cross-check: (datetime.date(y, m, d).isoweekday() % 7) gives the same numbers.
        calls=['weekday_number(2024, 1, 1)', 'weekday_number(2000, 1, 1)', 'weekday_number(2023, 12, 25)',
               'weekday_number(1970, 1, 1)', 'weekday_number(2024, 2, 29)', 'weekday_number(2024, 3, 1)',
               'weekday_number(1900, 3, 1)', 'weekday_number(2021, 7, 4)', 'weekday_number(2100, 2, 28)'],
    ),
    dict(
        name='duration_to_seconds',
        query='Convert a compact duration string such as "1h30m15s" into a number of seconds; '
              'an empty string is 0 seconds and malformed input gives -1.',
        code='''
            def duration_to_seconds(text):
                units = {'h': 3600, 'm': 60, 's': 1}
                total = 0
                number = ''
                for ch in text:
                    if ch.isdigit():
                        number += ch
                    elif ch in units and number:
                        total += int(number) * units[ch]
                        number = ''
                    else:
                        return -1
                if number:
                    return -1
                return total
        ''',
        calls=["duration_to_seconds('')", "duration_to_seconds('1h')", "duration_to_seconds('1h30m15s')",
               "duration_to_seconds('45s')", "duration_to_seconds('2m')", "duration_to_seconds('10')",
               "duration_to_seconds('m5')", "duration_to_seconds('1d')", "duration_to_seconds('90m1s')"],
    ),
    dict(
        name='seconds_to_clock',
        query='Format a number of seconds as an HH:MM:SS clock string (hours may exceed 24; negative values '
              'get a leading minus sign).',
        code='''
            def seconds_to_clock(seconds):
                if seconds < 0:
                    return '-' + seconds_to_clock(-seconds)
                hours = seconds // 3600
                minutes = seconds % 3600 // 60
                secs = seconds % 60
                return f'{hours:02d}:{minutes:02d}:{secs:02d}'
        ''',
        calls=['seconds_to_clock(0)', 'seconds_to_clock(59)', 'seconds_to_clock(60)', 'seconds_to_clock(3599)',
               'seconds_to_clock(3600)', 'seconds_to_clock(86399)', 'seconds_to_clock(90061)',
               'seconds_to_clock(-61)'],
    ),
    dict(
        name='add_months_clamped',
        query='Add a number of months to a (year, month, day) date, clamping the day to the last day of the '
              'resulting month (Jan 31 + 1 month -> Feb 28/29).',
        code='''
            def add_months_clamped(year, month, day, months):
                total = year * 12 + (month - 1) + months
                new_year, new_month = divmod(total, 12)
                new_month += 1
                if new_month == 2:
                    leap = new_year % 4 == 0 and (new_year % 100 != 0 or new_year % 400 == 0)
                    last = 29 if leap else 28
                elif new_month in (4, 6, 9, 11):
                    last = 30
                else:
                    last = 31
                return new_year, new_month, min(day, last)
        ''',
        calls=['add_months_clamped(2024, 1, 31, 1)', 'add_months_clamped(2023, 1, 31, 1)',
               'add_months_clamped(2023, 12, 15, 1)', 'add_months_clamped(2024, 3, 31, -1)',
               'add_months_clamped(2023, 5, 31, 1)', 'add_months_clamped(2023, 1, 1, 0)',
               'add_months_clamped(2023, 1, 1, -1)', 'add_months_clamped(2023, 11, 30, 27)',
               'add_months_clamped(1900, 1, 31, 1)', 'add_months_clamped(2023, 8, 31, 4)'],
    ),
    dict(
        name='minutes_until',
        query='Given two "HH:MM" times on a 24-hour clock, return how many minutes pass from the first to the '
              'second, wrapping past midnight.',
        code='''
            def minutes_until(start, end):
                sh, sm = map(int, start.split(':'))
                eh, em = map(int, end.split(':'))
                diff = (eh * 60 + em) - (sh * 60 + sm)
                if diff < 0:
                    diff += 24 * 60
                return diff
        ''',
        calls=["minutes_until('09:00', '17:30')", "minutes_until('23:00', '01:00')", "minutes_until('12:00', '12:00')",
               "minutes_until('00:00', '23:59')", "minutes_until('23:59', '00:00')", "minutes_until('10:15', '10:14')",
               "minutes_until('06:30', '06:45')", "minutes_until('13:05', '14:00')"],
    ),
    dict(
        name='age_in_years',
        query='Compute the age in completed years of someone born on a given (year, month, day) as of another date.',
        code='''
            def age_in_years(birth, today):
                by, bm, bd = birth
                ty, tm, td = today
                age = ty - by
                if (tm, td) < (bm, bd):
                    age -= 1
                return age
        ''',
        calls=['age_in_years((2000, 1, 1), (2024, 1, 1))', 'age_in_years((2000, 6, 15), (2024, 6, 14))',
               'age_in_years((2000, 6, 15), (2024, 6, 15))', 'age_in_years((2000, 6, 15), (2024, 7, 1))',
               'age_in_years((2000, 12, 31), (2001, 1, 1))', 'age_in_years((2000, 2, 29), (2023, 2, 28))',
               'age_in_years((2000, 2, 29), (2023, 3, 1))', 'age_in_years((1990, 5, 5), (1990, 5, 5))'],
    ),
    dict(
        name='overlap_duration',
        query='Given two time intervals as start and end minutes, return how many minutes they overlap '
              '(0 if they do not).',
        code='''
            def overlap_duration(start1, end1, start2, end2):
                start = max(start1, start2)
                end = min(end1, end2)
                if end <= start:
                    return 0
                return end - start
        ''',
        calls=['overlap_duration(0, 10, 5, 15)', 'overlap_duration(0, 5, 5, 10)', 'overlap_duration(0, 5, 6, 10)',
               'overlap_duration(0, 10, 2, 3)', 'overlap_duration(5, 15, 0, 10)', 'overlap_duration(0, 10, 0, 10)',
               'overlap_duration(3, 4, 0, 100)', 'overlap_duration(10, 20, 0, 5)'],
    ),
    dict(
        name='julian_day_number',
        query='Convert a Gregorian calendar date to its Julian Day Number (the integer day count used in astronomy).',
        code='''
            def julian_day_number(year, month, day):
                a = (14 - month) // 12
                y = year + 4800 - a
                m = month + 12 * a - 3
                return day + (153 * m + 2) // 5 + 365 * y + y // 4 - y // 100 + y // 400 - 32045
        ''',
        # Reference values: JDN of 2000-01-01 is 2451545 (J2000 epoch day), of 1970-01-01 is 2440588 (Unix epoch),
        # of 1858-11-17 is 2400001 (MJD 0 = JD 2400000.5). Also equals date.toordinal() + 1721425.
        calls=['julian_day_number(2000, 1, 1)', 'julian_day_number(1970, 1, 1)', 'julian_day_number(1858, 11, 17)',
               'julian_day_number(2024, 2, 29)', 'julian_day_number(2024, 3, 1)', 'julian_day_number(2000, 2, 28)',
               'julian_day_number(2000, 3, 1)', 'julian_day_number(2023, 12, 31)', 'julian_day_number(1600, 1, 1)'],
    ),
]
