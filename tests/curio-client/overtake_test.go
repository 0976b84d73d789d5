package main

import "testing"

// judgeOvertake on the stamps of two real runs of curio-client overtake (2 KiB sectors, one
// synthesizer, one CPU device, 2026-12-04/05) and on those runs changed to break each rule.
func TestJudgeOvertake(t *testing.T) {
	// 2026-12-04: porep-1 took the synthesizer before the WinningPoSt was accepted, porep-2 was
	// queued behind it.
	calm := func() (uint64, uint64, uint64, []overtakePart) {
		return 1796426808478, 1796426814069, 1796426830026, []overtakePart{
			{"porep-1", 0, 1796426808463, 1796426814074},
			{"porep-2", 0, 1796426814413, 1796426832268},
		}
	}
	// 2026-12-05, under a parallel build: the scheduler dispatched porep-1 34 ms after the
	// WinningPoSt's acceptance (its ticket still unread in the mailbox); porep-2 was overtaken.
	loaded := func() (uint64, uint64, uint64, []overtakePart) {
		return 1796445419120, 1796445425464, 1796445456169, []overtakePart{
			{"porep-1", 0, 1796445419154, 1796445425465},
			{"porep-2", 0, 1796445425757, 1796445461304},
		}
	}
	cases := []struct {
		name  string
		stamp func() (uint64, uint64, uint64, []overtakePart)
		edit  func(parts []overtakePart) []overtakePart
		fails int
	}{
		{"calm run", calm, nil, 0},
		{"loaded run: one dispatch between acceptance and synthesis", loaded, nil, 0},
		{"two dispatches between", loaded, func(p []overtakePart) []overtakePart {
			return append(p, overtakePart{"porep-3", 0, 1796445419200, 1796445430000})
		}, 1},
		{"nothing overtaken", calm, func(p []overtakePart) []overtakePart { return p[:1] }, 1},
		{"an overtaken partition on the device first", calm, func(p []overtakePart) []overtakePart {
			p[1].devStart = 1796426829000
			return p
		}, 1},
	}
	for _, c := range cases {
		accepted, winSynth, winStart, parts := c.stamp()
		if c.edit != nil {
			parts = c.edit(parts)
		}
		oks, fails := judgeOvertake(accepted, winSynth, winStart, parts)
		if len(fails) != c.fails {
			t.Errorf("%s: %d failures, want %d: %v (ok: %v)", c.name, len(fails), c.fails, fails, oks)
		}
	}
}
