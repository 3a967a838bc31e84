// The Go side of a `calls` suite (infra/runner/sandbox_calls.py), compiled into one binary with the candidate's
// file (package main, activities/exec/callsBuild.ts). It reads the calls' arguments on stdin (never an expected
// value), calls the entry function through reflect, and writes one plain-data report line per call on fd 3:
// {"i": k, "v": [{"r": value} | {"e": message} | {"p": message}]} or {"i": k, "v": [], "o": "ERROR: ..."}.
// The judge decides the verdicts; a forged line can only claim a value, never a pass.
// Every package-level name starts with xrHarness so a candidate's names do not collide with ours.
package main

import (
	xrjson "encoding/json"
	xrfmt "fmt"
	xrio "io"
	xros "os"
	xrreflect "reflect"
)

var xrHarnessEntry = XR_ENTRY_POINT

type xrHarnessCall struct {
	A []xrjson.RawMessage `json:"a"`
	M *int                `json:"m"`
}

var xrHarnessErrorType = xrreflect.TypeOf((*error)(nil)).Elem()

func main() {
	out := xros.NewFile(3, "report")
	data, err := xrio.ReadAll(xros.Stdin)
	var calls []xrHarnessCall
	if err == nil {
		err = xrjson.Unmarshal(data, &calls)
	}
	if err != nil {
		xros.Exit(70)
	}
	fv := xrreflect.ValueOf(xrHarnessEntry)
	for i, c := range calls {
		line := xrHarnessOne(i, fv, c)
		if _, err := out.Write(append(line, '\n')); err != nil {
			xros.Exit(70)
		}
	}
	xros.Exit(0)
}

func xrHarnessStop(i int, outcome string) []byte {
	b, _ := xrjson.Marshal(map[string]any{"i": i, "v": []any{}, "o": outcome})
	return b
}

func xrHarnessValue(i int, v map[string]any) []byte {
	b, err := xrjson.Marshal(map[string]any{"i": i, "v": []any{v}})
	if err != nil {
		return xrHarnessStop(i, "ERROR: ValueNotData")
	}
	return b
}

func xrHarnessOne(i int, fv xrreflect.Value, c xrHarnessCall) (line []byte) {
	ft := fv.Type()
	n := ft.NumIn()
	if (!ft.IsVariadic() && len(c.A) != n) || (ft.IsVariadic() && len(c.A) != n) {
		return xrHarnessStop(i, "ERROR: ArgumentCount")
	}
	args := make([]xrreflect.Value, n)
	for k := 0; k < n; k++ {
		p := xrreflect.New(ft.In(k))
		if err := xrjson.Unmarshal(c.A[k], p.Interface()); err != nil {
			return xrHarnessStop(i, "ERROR: ArgumentType")
		}
		args[k] = p.Elem()
	}
	defer func() {
		if r := recover(); r != nil {
			line = xrHarnessValue(i, map[string]any{"p": xrHarnessShort(xrfmt.Sprint(r))})
		}
	}()
	var res []xrreflect.Value
	if ft.IsVariadic() {
		res = fv.CallSlice(args)
	} else {
		res = fv.Call(args)
	}
	if m := ft.NumOut(); m > 0 && ft.Out(m-1) == xrHarnessErrorType {
		if e := res[m-1]; !e.IsNil() {
			return xrHarnessValue(i, map[string]any{"e": xrHarnessShort(e.Interface().(error).Error())})
		}
		res = res[:m-1]
	}
	if c.M != nil {
		if *c.M >= n {
			return xrHarnessStop(i, "ERROR: ArgumentCount")
		}
		return xrHarnessValue(i, map[string]any{"r": args[*c.M].Interface()})
	}
	switch len(res) {
	case 0:
		return xrHarnessValue(i, map[string]any{"r": nil})
	case 1:
		return xrHarnessValue(i, map[string]any{"r": res[0].Interface()})
	}
	all := make([]any, len(res))
	for k, r := range res {
		all[k] = r.Interface()
	}
	return xrHarnessValue(i, map[string]any{"r": all})
}

// A message is shown to people, never compared: 200 bytes are enough, and a huge one must not stop the report.
func xrHarnessShort(s string) string {
	if len(s) > 200 {
		return s[:200]
	}
	return s
}
