"""Curated tasks: state machines. Expected values are computed by build.py from the canonicals."""

TASKS = [
    dict(
        name='turnstile_final_state',
        query='Simulate a coin-operated turnstile (a coin unlocks it, a push through an unlocked turnstile locks it '
              'again) over a list of events; return the final state and how many people passed.',
        code='''
            def turnstile_final_state(events):
                state = 'locked'
                passes = 0
                for e in events:
                    if state == 'locked' and e == 'coin':
                        state = 'unlocked'
                    elif state == 'unlocked' and e == 'push':
                        state = 'locked'
                        passes += 1
                return state, passes
        ''',
        calls=['turnstile_final_state([])', "turnstile_final_state(['coin'])", "turnstile_final_state(['push'])",
               "turnstile_final_state(['coin', 'push'])", "turnstile_final_state(['coin', 'coin', 'push', 'push'])",
               "turnstile_final_state(['push', 'coin', 'push', 'coin'])",
               "turnstile_final_state(['coin', 'push', 'coin', 'push', 'coin', 'push'])",
               "turnstile_final_state(['kick', 'coin'])"],
    ),
    dict(
        name='split_csv_line',
        query='Split one CSV line into fields with a small state machine that honours double-quoted fields '
              'containing commas and doubled quotes ("") as an escaped quote.',
        code='''
            def split_csv_line(line):
                fields = []
                current = []
                in_quotes = False
                i = 0
                while i < len(line):
                    ch = line[i]
                    if in_quotes:
                        if ch == '"':
                            if i + 1 < len(line) and line[i + 1] == '"':
                                current.append('"')
                                i += 1
                            else:
                                in_quotes = False
                        else:
                            current.append(ch)
                    elif ch == '"':
                        in_quotes = True
                    elif ch == ',':
                        fields.append(''.join(current))
                        current = []
                    else:
                        current.append(ch)
                    i += 1
                fields.append(''.join(current))
                return fields
        ''',
        calls=["split_csv_line('')", "split_csv_line('a,b,c')", """split_csv_line('"a,b",c')""",
               '''split_csv_line('"say ""hi"""')''', "split_csv_line('a,,b')", "split_csv_line(',')",
               """split_csv_line('"x"')""", '''split_csv_line('"a""",b')''', """split_csv_line('1,"",3')"""],
    ),
    dict(
        name='door_final_state',
        query='Run a door state machine (closed, opened, locked, broken; it starts closed) over a list of events '
              'such as open, close, lock, unlock and kick; return the final state and the number of rejected events.',
        code='''
            def door_final_state(events):
                transitions = {
                    ('closed', 'open'): 'opened',
                    ('opened', 'close'): 'closed',
                    ('closed', 'lock'): 'locked',
                    ('locked', 'unlock'): 'closed',
                }
                state = 'closed'
                rejected = 0
                for event in events:
                    if state == 'broken':
                        rejected += 1
                        continue
                    if event == 'kick':
                        state = 'broken'
                        continue
                    key = (state, event)
                    if key in transitions:
                        state = transitions[key]
                    else:
                        rejected += 1
                return state, rejected
        ''',
        calls=['door_final_state([])', "door_final_state(['open'])", "door_final_state(['open', 'close', 'lock'])",
               "door_final_state(['lock', 'open'])", "door_final_state(['lock', 'unlock', 'open'])",
               "door_final_state(['kick', 'open', 'close'])", "door_final_state(['open', 'lock', 'kick'])",
               "door_final_state(['close', 'unlock', 'open', 'open'])"],
    ),
    dict(
        name='binary_divisible_by_three',
        query='Decide with a three-state finite automaton whether a binary string is a multiple of three; '
              'empty strings or strings with characters other than 0 and 1 are rejected.',
        code='''
            def binary_divisible_by_three(bits):
                if not bits:
                    return False
                state = 0
                for b in bits:
                    if b not in '01':
                        return False
                    state = (state * 2 + int(b)) % 3
                return state == 0
        ''',
        calls=["binary_divisible_by_three('')", "binary_divisible_by_three('0')", "binary_divisible_by_three('11')",
               "binary_divisible_by_three('110')", "binary_divisible_by_three('111')",
               "binary_divisible_by_three('1001')", "binary_divisible_by_three('10')", "binary_divisible_by_three('12')",
               "binary_divisible_by_three('1111')", "binary_divisible_by_three('100')"],
    ),
    dict(
        name='traffic_light_at',
        query='A traffic light cycles green for 30 s, yellow for 5 s and red for 25 s starting green at time 0; '
              'return its colour at a given second ("invalid" for negative times).',
        code='''
            def traffic_light_at(seconds):
                if seconds < 0:
                    return 'invalid'
                t = seconds % 60
                if t < 30:
                    return 'green'
                if t < 35:
                    return 'yellow'
                return 'red'
        ''',
        calls=['traffic_light_at(0)', 'traffic_light_at(29)', 'traffic_light_at(30)', 'traffic_light_at(34)',
               'traffic_light_at(35)', 'traffic_light_at(59)', 'traffic_light_at(60)', 'traffic_light_at(-1)',
               'traffic_light_at(95)', 'traffic_light_at(125)'],
    ),
    dict(
        name='strip_c_comments',
        query='Remove // line comments and /* block */ comments from C-like source code with a state machine, '
              'leaving comment markers inside double-quoted strings alone.',
        code='''
            def strip_c_comments(source):
                out = []
                i = 0
                n = len(source)
                state = 'code'
                while i < n:
                    ch = source[i]
                    nxt = source[i + 1] if i + 1 < n else ''
                    if state == 'code':
                        if ch == '/' and nxt == '/':
                            state = 'line'
                            i += 2
                            continue
                        if ch == '/' and nxt == '*':
                            state = 'block'
                            i += 2
                            continue
                        if ch == '"':
                            state = 'string'
                        out.append(ch)
                    elif state == 'line':
                        if ch == '\\n':
                            state = 'code'
                            out.append(ch)
                    elif state == 'block':
                        if ch == '*' and nxt == '/':
                            state = 'code'
                            i += 2
                            continue
                    else:
                        if ch == '"':
                            state = 'code'
                        out.append(ch)
                    i += 1
                return ''.join(out)
        ''',
        calls=["strip_c_comments('')", "strip_c_comments('int a; // note')", "strip_c_comments('a/* x */b')",
               "strip_c_comments('x // c\\ny')", """strip_c_comments('s = "//not";')""",
               "strip_c_comments('a /* multi\\nline */ b')", "strip_c_comments('a / b')",
               "strip_c_comments('/**/x/')", """strip_c_comments('"/*" /* c */ "*/"')"""],
    ),
    dict(
        name='vend_items',
        query='Simulate a vending machine that accepts only 5, 10 and 25 cent coins and dispenses an item whenever '
              'the balance reaches the price; return (items dispensed, remaining balance, total of rejected coins).',
        code='''
            def vend_items(coins, price):
                balance = 0
                items = 0
                rejected = 0
                for coin in coins:
                    if coin not in (5, 10, 25):
                        rejected += coin
                        continue
                    balance += coin
                    if balance >= price:
                        items += 1
                        balance -= price
                return items, balance, rejected
        ''',
        calls=['vend_items([25, 25], 50)', 'vend_items([25, 10, 10], 40)', 'vend_items([1, 25], 25)',
               'vend_items([], 30)', 'vend_items([10, 10], 25)', 'vend_items([25, 25, 25], 25)',
               'vend_items([5, 3, 5], 10)', 'vend_items([10, 10, 10, 10], 20)', 'vend_items([25, 5, 50], 30)'],
    ),
    dict(
        name='debounce_signal',
        query='Debounce a sequence of 0/1 samples: the output starts at the first sample and only switches to a new '
              'level after it has been seen for a given number of consecutive samples.',
        code='''
            def debounce_signal(samples, stable_count):
                if not samples:
                    return []
                state = samples[0]
                run = 0
                output = []
                for s in samples:
                    if s != state:
                        run += 1
                        if run >= stable_count:
                            state = s
                            run = 0
                    else:
                        run = 0
                    output.append(state)
                return output
        ''',
        calls=['debounce_signal([], 2)', 'debounce_signal([0, 1, 0, 1], 2)', 'debounce_signal([0, 1, 1, 0], 2)',
               'debounce_signal([1, 1, 1], 2)', 'debounce_signal([0, 1, 1, 1], 3)', 'debounce_signal([0, 1], 1)',
               'debounce_signal([0, 1, 0, 0, 1, 1, 1], 2)', 'debounce_signal([1, 0, 0, 1, 0, 0], 2)'],
    ),
    dict(
        name='run_stack_program',
        query='Execute a tiny stack-machine program of "push N", "pop", "add", "sub" and "mul" instructions and '
              'return the final stack, or None on stack underflow or an unknown instruction.',
        code='''
            def run_stack_program(program):
                stack = []
                for instr in program:
                    parts = instr.split()
                    op = parts[0]
                    if op == 'push':
                        stack.append(int(parts[1]))
                    elif op == 'pop':
                        if not stack:
                            return None
                        stack.pop()
                    elif op in ('add', 'sub', 'mul'):
                        if len(stack) < 2:
                            return None
                        b = stack.pop()
                        a = stack.pop()
                        if op == 'add':
                            stack.append(a + b)
                        elif op == 'sub':
                            stack.append(a - b)
                        else:
                            stack.append(a * b)
                    else:
                        return None
                return stack
        ''',
        calls=['run_stack_program([])', "run_stack_program(['push 1', 'push 2', 'add'])",
               "run_stack_program(['push 5', 'push 3', 'sub'])", "run_stack_program(['push 2', 'push 4', 'mul'])",
               "run_stack_program(['pop'])", "run_stack_program(['push 1', 'add'])",
               "run_stack_program(['push 1', 'jump'])", "run_stack_program(['push 3', 'push 4', 'push 5', 'mul', 'sub'])",
               "run_stack_program(['push 7', 'pop'])", "run_stack_program(['push 2', 'push 2', 'add', 'push 1', 'sub'])"],
    ),
    dict(
        name='game_of_life_step',
        query="Advance a grid of 0/1 cells by one generation of Conway's Game of Life (cells beyond the edges "
              'count as dead).',
        code='''
            def game_of_life_step(grid):
                rows = len(grid)
                cols = len(grid[0]) if rows else 0
                result = []
                for r in range(rows):
                    row = []
                    for c in range(cols):
                        live = 0
                        for dr in (-1, 0, 1):
                            for dc in (-1, 0, 1):
                                if dr == 0 and dc == 0:
                                    continue
                                rr, cc = r + dr, c + dc
                                if 0 <= rr < rows and 0 <= cc < cols:
                                    live += grid[rr][cc]
                        if grid[r][c] == 1:
                            row.append(1 if live in (2, 3) else 0)
                        else:
                            row.append(1 if live == 3 else 0)
                    result.append(row)
                return result
        ''',
        calls=['game_of_life_step([])', 'game_of_life_step([[0]])', 'game_of_life_step([[1]])',
               'game_of_life_step([[0, 1, 0], [0, 1, 0], [0, 1, 0]])', 'game_of_life_step([[1, 1], [1, 1]])',
               'game_of_life_step([[1, 1], [1, 0]])', 'game_of_life_step([[1, 1, 1], [1, 1, 1], [1, 1, 1]])',
               'game_of_life_step([[1, 0, 0], [0, 1, 0], [0, 0, 1]])',
               'game_of_life_step([[0, 0, 0, 0], [0, 1, 1, 1], [1, 1, 1, 0], [0, 0, 0, 0]])'],
    ),
]
