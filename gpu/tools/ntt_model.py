#!/usr/bin/env python3
# Host model of the NTT pass plan and of ntt_pass_reg (gpu/src/ntt.cu) over a small prime field,
# checked against a direct DFT: python3 gpu/tools/ntt_model.py 3 4 5 8 10 11 12 13 14
# Host model of gpu/src/ntt.cu's plan + ntt_pass_reg (index logic) over a small prime field.
P = 7340033; G = 3  # 2^20 | P-1
def root(lg, inv=False):
    w = pow(G, (P-1) >> lg, P)
    return pow(w, P-2, P) if inv else w
def bitrev(x, bits): return int(format(x, '0%db' % bits)[::-1], 2) if bits else 0
small_log = 10
def plan(L):
    if L == 0: return []
    passes = 1 if L <= 10 else (L - 10 + 8)//9 + 1
    base, rem = L // passes, L % passes
    out = []; r = L
    for p in range(passes):
        k = base + (1 if p >= passes - rem else 0)
        t = 0 if p + 1 == passes else min(2, r - k)
        out.append((r, k, t)); r -= k
    return out
def small_table(inv): 
    w = root(small_log, inv); return [pow(w, x, P) for x in range(512)]
def tw_table(r, k, inv):
    w = root(r, inv); n = 1 << r
    return [pow(w, (idx & ((1 << (r-k)) - 1)) * bitrev(idx >> (r-k), k), P) for idx in range(n)]
def pass_reg(data, L, r, k, t, small, tw, DIT):
    T = 1 << (k+t); S = 1 << (r-k); lblocks = S >> t; tmask = (1<<t)-1
    nthreads = T >> 3
    for blk in range((1 << L) >> (k+t)):
        hi = blk // lblocks; l0 = (blk % lblocks) << t; base = (hi << r) + l0
        roots = [small[x << (small_log - k)] for x in range(1 << (k-1))]
        sh = [None]*T
        groups = (k+2)//3; done = 0
        for g in range(groups):
            m = min(3, k-done); s_top = k-1-done if DIT else done
            first, last = g == 0, g+1 == groups
            X = 1 << m; U = 8 // X
            b_lo = k-1-s_top if DIT else k-m-s_top; p_lo = b_lo + t; lowmask = (1 << p_lo)-1
            for tid in range(nthreads):
                eb = [((tid+u*nthreads) & lowmask) | (((tid+u*nthreads) >> p_lo) << (p_lo+m)) for u in range(U)]
                v = [0]*8
                for u in range(U):
                    for x in range(X):
                        e = eb[u] | (x << p_lo)
                        if first:
                            off = (e >> t)*S + (e & tmask); a = data[base+off]
                            if DIT and tw: a = a*tw[off+l0] % P
                            v[u*X+x] = a
                        else: v[u*X+x] = sh[e]
                for i in range(m):
                    bit = i if DIT else m-1-i; s = s_top - i if DIT else s_top + i
                    hmask = (1 << (k-1-s)) - 1
                    for u in range(U):
                        for x in range(X):
                            if (x >> bit) & 1: continue
                            x1 = x | (1 << bit); j = ((eb[u] | (x << p_lo)) >> t) & hmask
                            a, b = v[u*X+x], v[u*X+x1]
                            if DIT:
                                y = b*roots[j << s] % P if j else b
                                v[u*X+x], v[u*X+x1] = (a+y) % P, (a-y) % P
                            else:
                                d = (a-b) % P
                                v[u*X+x] = (a+b) % P; v[u*X+x1] = d*roots[j << s] % P if j else d
                for u in range(U):
                    for x in range(X):
                        e = eb[u] | (x << p_lo)
                        if last:
                            off = (e >> t)*S + (e & tmask); a = v[u*X+x]
                            if (not DIT) and tw: a = a*tw[off+l0] % P
                            data[base+off] = a
                        else: sh[e] = v[u*X+x]
            done += m
def dif(data, L, inv):
    ps = plan(L); small = small_table(inv)
    for i, (r, k, t) in enumerate(ps):
        tw = tw_table(r, k, inv) if i+1 < len(ps) else None
        pass_reg(data, L, r, k, t, small, tw, False)
def dit(data, L, inv):
    ps = plan(L); small = small_table(inv)
    for i in reversed(range(len(ps))):
        r, k, t = ps[i]
        tw = tw_table(r, k, inv) if i+1 < len(ps) else None
        pass_reg(data, L, r, k, t, small, tw, True)
import random
import sys
for L in [int(a) for a in sys.argv[1:]] or [3, 4, 5, 8, 10, 11, 12]:
    n = 1 << L; v = [random.randrange(P) for _ in range(n)]
    w = root(L)
    want = [sum(v[j]*pow(w, i*j, P) for j in range(n)) % P for i in range(n)] if L <= 11 else None
    d = v[:]; dif(d, L, False)
    nat = [d[bitrev(i, L)] for i in range(n)]
    ok1 = want is None or nat == want
    # DIT with forward roots on bit-reversed input = forward DFT in natural order
    br = [v[bitrev(i, L)] for i in range(n)]; dit(br, L, False)
    ok2 = want is None or br == want
    # consistency: dif then (bitrev) inverse-dit gives n*v
    d2 = v[:]; dif(d2, L, False); dit(d2, L, True)
    ok3 = d2 == [x*n % P for x in v]
    print(L, plan(L), 'dif' if ok1 else 'DIF WRONG', 'dit' if ok2 else 'DIT WRONG', 'roundtrip' if ok3 else 'ROUNDTRIP WRONG')
    if not (ok1 and ok2 and ok3): sys.exit(1)
