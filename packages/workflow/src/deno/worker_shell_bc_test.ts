import { assertBashCases } from "./_test-bash-cases.ts";

/**
 * `bc` is GNU bc 1.07's calculator (WS-181; the output below is GNU bash 5.2
 * with GNU bc 1.07.1): arithmetic of any length truncated to POSIX's scale
 * of each operator, `ibase` and `obase`, variables, arrays, functions,
 * loops, `print`, the `-l` library, GNU's line breaking, its syntax error
 * messages and its status 0 after errors. Runtime error messages differ
 * from GNU's (no `adr=N`), so those cases discard standard error. Before,
 * `bc` was "command not found" (127).
 */
Deno.test("worker shell: bc computes as GNU bc does", async () => {
  await assertBashCases([
    [
      'echo "scale=2; 10/3" | bc; bc <<< "2^10"; bc -l <<< "10/3"; echo "1.5 * 3" | bc; echo "scale=2; -1/3; 1/3" | bc',
      "3.33\n1024\n3.33333333333333333333\n4.5\n-.33\n.33\n",
      0,
    ],
    [
      'a=1.5; b=1.2; if [ "$(echo "$a > $b" | bc -l)" -eq 1 ]; then echo bigger; fi; r=$(echo "$b > $a" | bc -l); (( r )) || echo smaller; echo "1.2 > 1.5" | bc; echo "scale=3; sqrt(2)" | bc; total=$(echo "scale=2; 7 / 2" | bc); echo "total=$total"',
      "bigger\nsmaller\n0\n1.414\ntotal=3.50\n",
      0,
    ],
    [
      'echo "obase=16; 255; -255; .5" | bc; echo "ibase=16; FF; A.8" | bc; echo "obase=2; 10" | bc; echo "obase=8; 64" | bc; echo "obase=20; 12345; -1.5" | bc; echo "ibase=2; 101; 12" | bc',
      "FF\n-FF\n.8\n255\n10.5\n1010\n100\n 01 10 17 05\n- 01.10\n5\n3\n",
      0,
    ],
    [
      'echo "scale=2; 10%3; -10%3; 1.11^10; 2^-2; 0.1+0.20; 1.000*1; 00012.3400" | bc; echo "scale=3; 2^-2; 1.5^7; sqrt(10.00); sqrt(16); 1/3*3" | bc; echo "scale=2; (-.1)^3" | bc',
      ".01\n-.01\n2.83\n.25\n.30\n1.000\n12.3400\n.250\n17.085\n3.162\n4.000\n.999\n-0\n",
      0,
    ],
    [
      'echo "99999999999999999999999*99999999999999999999999; 2^64; -7 % 3; 2^3^2; -2^2; (1+2)*3; 100/10/5" | bc',
      "9999999999999999999999800000000000000000000001\n18446744073709551616\n-1\n512\n4\n9\n2\n",
      0,
    ],
    [
      "printf 'define f(n) {\\n  auto i, s\\n  for (i = 1; i <= n; i++) s += i\\n  return (s)\\n}\\nf(100)\\ndefine fact(n) { if (n < 2) return 1; return n * fact(n - 1) }\\nfact(25)\\n' | bc",
      "5050\n15511210043330985984000000\n",
      0,
    ],
    [
      "printf 'define f(n){ if(n==0) return 0; return f(n-1)+1 }\\nf(5000)\\n' | bc",
      "5000\n",
      0,
    ],
    [
      "printf 'i=0\\nwhile (1) { if (i >= 5) break; i += 1 }\\ni\\nfor (i=0; i<10; i++) { if (i==2) continue; if (i==4) break; i }\\nif (1 > 2) 3 else 4\\n' | bc",
      "5\n0\n1\n3\n4\n",
      0,
    ],
    [
      "echo 'x=5; x++; x; x--; --x; x+=10; x; x^=2; x; a[3]=4; a[3]+1; a[3]++; a[3]; (y=7); last; .+1' | bc",
      "5\n6\n6\n4\n14\n196\n5\n4\n5\n7\n7\n8\n",
      0,
    ],
    [
      "echo '!0; !5; 1 && 0; 0 || 2; a = 1 < 2; a; x=3; x == 3; x != 3; -1 < 0; 1 <= 1; 2 >= 3' | bc",
      "1\n0\n0\n1\n1\n1\n1\n0\n1\n1\n0\n",
      0,
    ],
    [
      'echo \'print "a\\tb\\n"; "text"; print 1, 2, "\\n"; print "q\\q\\\\\\n"\' | bc',
      'a\tb\ntext12\nq"\\\n',
      0,
    ],
    [
      "echo 'length(123.450); scale(1.230); length(0.05); length(0); scale(-1.50)' | bc",
      "6\n3\n2\n1\n2\n",
      0,
    ],
    [
      'echo "2^250" | bc; echo "2^250" | BC_LINE_LENGTH=0 bc; echo "2^100" | BC_LINE_LENGTH=20 bc; echo "obase=17; 2^100" | bc',
      "18092513943330655534932966407607485602073435104006338131165247501236\\\n42650624\n1809251394333065553493296640760748560207343510400633813116524750123642650624\n126765060022822940\\\n1496703205376\n 03 12 08 04 05 02 06 06 01 11 13 06 15 10 10 04 14 05 10 16 13 04 0\\\n7 07 16\n",
      0,
    ],
    [
      'echo "s(1); c(1); a(1); l(2); e(1); j(1,2)" | bc -l; echo "scale=50; 4*a(1)" | bc -l; echo "scale=5; e(-1); s(-1); l(10); scale" | bc -l',
      ".84147098480789650665\n.54030230586813971740\n.78539816339744830961\n.69314718055994530941\n2.71828182845904523536\n.57672480775687338720\n3.14159265358979323846264338327950288419716939937508\n.36787\n-.84147\n2.30258\n5\n",
      0,
    ],
    [
      "printf '/* a comment\\n spanning lines */ 3 + 4  # and a tail\\n12\\\\\\n34\\n1 +\\\\\\n 2\\n' | bc",
      "7\n1234\n3\n",
      0,
    ],
    [
      "printf '1/0\\n5\\n1/0; 6\\nsqrt(-1)\\n7\\n' | bc 2>/dev/null; echo \"rc $?\"",
      "5\n7\nrc 0\n",
      0,
    ],
    [
      "printf '1+\\n2\\nx=1; x=\\n3\\n4\\n' | bc 2>&1 >/dev/null; printf '1+\\n2\\nx=1; x=\\n3\\n4\\n' | bc 2>/dev/null; echo \"rc $?\"",
      "(standard_in) 2: syntax error\n(standard_in) 4: syntax error\n2\n4\nrc 0\n",
      0,
    ],
    [
      "printf '1;2+;3\\n4\\n@\\n5\\n' | bc 2>&1 >/dev/null; printf '1;2+;3\\n4\\n@\\n5\\n' | bc 2>/dev/null",
      "(standard_in) 1: syntax error\n(standard_in) 3: illegal character: @\n4\n5\n",
      0,
    ],
    [
      "printf '1\\nquit\\n2\\n' | bc; printf '1\\nhalt\\n2\\n' | bc; printf '1;quit\\n' | bc; echo \"rc $?\"; printf 1 | bc 2>&1",
      "1\n1\nrc 0\n(standard_in) 1: syntax error\n",
      0,
    ],
    [
      "printf 'x=3\\ndefine f(n) { return (n * x) }\\n' > lib.bc; echo 'f(2)' | bc lib.bc; printf '5\\nquit\\n' > q.bc; echo 7 | bc -q q.bc; bc nope.bc < /dev/null; echo \"rc $?\"",
      "6\n5\nFile nope.bc is unavailable.\nrc 1\n",
      0,
    ],
    [
      "printf '2^2.0\\nobase=1\\nscale=-1\\nfoo(1)\\n' | bc 2>/dev/null; echo \"rc $?\"",
      "4\nrc 0\n",
      0,
    ],
    [
      "printf 'define f(x[]) { return x[1] }\\na[1] = 4; f(a[])\\ndefine g() { auto a[]; a[1] = 9; return a[1] }\\ng(); a[1]\\n' | bc",
      "4\n9\n4\n",
      0,
    ],
    [
      "printf 'x=3\\ndefine f() { auto x; x = 9; return g() }\\ndefine g() { return x }\\nf(); x\\n' | bc",
      "9\n3\n",
      0,
    ],
    [
      "echo 'scale=20; 1/7; scale=2; 1.5 > 1.25; -0; .000; -.5; 1.0 == 1' | bc; command -v bc",
      ".14285714285714285714\n1\n0\n0\n-.5\n1\n/usr/bin/bc\n",
      0,
    ],
  ], { fresh: true });
});
