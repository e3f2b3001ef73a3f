#!/usr/bin/env bash
# Measures readygap's ingest on generated realistic input (scripts/gendata:
# gzip'd ALB access logs as S3 objects, a gcloud JSON export as gcloud writes
# it and as NDJSON, ingress-nginx controller output, an Envoy Gateway proxy's
# JSON access log) beside baselines run in the same rounds, and prints in
# one run:
#
#   1. throughput: `readygap analyze -o json` on each input, its MB/s, peak
#      RSS and CPU time, and its speed against zcat, pigz -dc, a parallel
#      inflate of the same objects (scripts/inflate: the decompression
#      limit), wc -l, jq, GoAccess and lnav (the ones not installed are
#      skipped), in wall time and in CPU time;
#   2. scaling: ALB inputs of several sizes of the same traffic mix → time,
#      MB/s, peak RSS and CPU time;
#   3. span: the same number of ALB lines spread over 1 hour, 1 day and 7
#      days → time, peak RSS and CPU time.
#
# Figures are medians over ROUNDS rounds; each round runs every command in
# turn, so a ratio is taken within a round and its median printed. The slow
# baselines (jq, GoAccess, lnav) run in the first round only.
#
#   scripts/bench-ingest.sh                     # 1 GB, 5 rounds, 0.5-4 GB scaling
#   SIZE_MB=256 ROUNDS=3 SCALE_MB="256 512" SPAN_MB=256 scripts/bench-ingest.sh
#   BENCH_DIR=/tmp/rg-bench scripts/bench-ingest.sh   # keep and reuse the data
#   SECTIONS="scaling span" scripts/bench-ingest.sh    # only some of the three
#   SECTIONS=throughput INPUTS=envoy scripts/bench-ingest.sh   # only some inputs
set -euo pipefail
cd "$(dirname "$0")/.."

size_mb=${SIZE_MB:-1024}
envoy_mb=${ENVOY_MB:-300} # the Envoy Gateway JSON access log
rounds=${ROUNDS:-5}
scale_mb=${SCALE_MB:-"512 1024 2048 4096"}
scale_rounds=${SCALE_ROUNDS:-5}
span_mb=${SPAN_MB:-1024}
spans=${SPANS:-"1h 24h 168h"}
sections=${SECTIONS:-"throughput scaling span"}
section() { [[ " $sections " == *" $1 "* ]]; }
inputs=${INPUTS:-"alb gcp ndjson nginx envoy"}
want() { [[ " $inputs " == *" $1 "* ]]; }
dir=${BENCH_DIR:-$(mktemp -d)}
mkdir -p "$dir"
cores=$(nproc)

if [ ! -x /usr/bin/time ]; then
  echo "GNU time (/usr/bin/time) is needed for peak RSS: apt-get install time" >&2
  exit 1
fi
have() { command -v "$1" >/dev/null; }

go build -o "$dir/readygap" ./cmd/readygap
go build -o "$dir/gendata" ./scripts/gendata
go build -o "$dir/inflate" ./scripts/inflate

# gen NAME MB SPAN [INPUT]: generate once into $dir/NAME.
gen() {
  local out="$dir/$1"
  if [ ! -f "$out/.done" ]; then
    rm -rf "$out"
    echo "generating $1 (~$2 MB over $3) ..." >&2
    "$dir/gendata" -out "$out" -size-mb "$2" -span "$3" ${4:+-only "$4"}
    touch "$out/.done"
  fi
}

# run KEY ROUND CMD: time one command (through bash), appending
# "KEY ROUND seconds maxrss_kb cpu_seconds" to the results. CPU seconds
# (user + system) say what a command costs when other jobs share the cores
# and wall times say more about them than about it.
results=$(mktemp)
run() {
  local key=$1 round=$2; shift 2
  local out
  out=$(mktemp)
  /usr/bin/time -f '%e %M %U %S' -o "$out" bash -c "$*" >/dev/null 2>&1 || true
  echo "$key $round $(tail -1 "$out" | awk '{print $1, $2, $3 + $4}')" >> "$results"
  rm -f "$out"
}

median() { sort -n | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]}'; }
secs() { awk -v k="$1" '$1==k {print $3}' "$results" | median; }
cpu() { awk -v k="$1" '$1==k {print $5}' "$results" | median; }
rss_mb() { awk -v k="$1" '$1==k {print $4}' "$results" | median | awk '{printf "%.0f", $1/1024}'; }
peak_mb() { awk -v k="$1" '$1==k {print $4}' "$results" | sort -n | tail -1 | awk '{printf "%.0f", $1/1024}'; }
mbs() { awk -v b="$1" -v s="$2" 'BEGIN { if (s>0) printf "%.0f", b/1048576/s; else print "-" }'; }
# ratio A B [FIELD]: the median over rounds of B's time / A's time (how
# many times faster A is); FIELD 5 compares CPU seconds instead.
ratio() {
  awk -v a="$1" -v b="$2" -v f="${3:-3}" '$1==a {ta[$2]=$f} $1==b {tb[$2]=$f}
    END {for (r in ta) if ((r in tb) && ta[r] > 0) print tb[r]/ta[r]}' "$results" | median | awk '{printf "%.2f", $1}'
}

echo "machine: $cores cores, $(go env GOVERSION), load $(cut -d' ' -f1-3 /proc/loadavg)"

# 1. Throughput.
if section throughput; then
# main holds the ALB, GCP and ingress-nginx inputs; ndjson and envoy are
# generated on their own.
want alb || want gcp || want nginx && gen main "$size_mb" 1h
want ndjson && gen ndjson $((size_mb / 4)) 1h gcp-ndjson
want envoy && gen envoy "$envoy_mb" 1h envoy-json
alb="$dir/main/alb"; gcp="$dir/main/gcp"; nginx="$dir/main/nginx"; ndjson="$dir/ndjson/gcp-ndjson"; envoy="$dir/envoy/envoy-json"
text_bytes() { if [ -d "$1" ]; then cat "$1"/* | wc -c; else echo 0; fi; }
alb_bytes=0 alb_files=0
if want alb; then alb_bytes=$(zcat "$alb"/*.gz | wc -c); alb_files=$(ls "$alb" | grep -c '\.gz$'); fi
gcp_bytes=0 ndjson_bytes=0 nginx_bytes=0 envoy_bytes=0
want gcp && gcp_bytes=$(text_bytes "$gcp")
want ndjson && ndjson_bytes=$(text_bytes "$ndjson")
want nginx && nginx_bytes=$(text_bytes "$nginx")
want envoy && envoy_bytes=$(text_bytes "$envoy")
ga_out=$(mktemp -d)
for r in $(seq "$rounds"); do
  echo "round $r/$rounds" >&2
  if want alb; then
    run alb-readygap "$r" "'$dir/readygap' analyze -o json '$alb'"
    run alb-zcat "$r" "zcat '$alb'/*.gz"
    have pigz && run alb-pigz "$r" "pigz -dc '$alb'/*.gz"
    run alb-inflate "$r" "'$dir/inflate' -j $cores '$alb'/*.gz"
    run alb-zcat-wc "$r" "zcat '$alb'/*.gz | wc -l"
  fi
  if want gcp; then
    run gcp-readygap "$r" "'$dir/readygap' analyze -o json '$gcp'"
    run gcp-wc "$r" "wc -l '$gcp'/*"
  fi
  if want ndjson; then
    run ndjson-readygap "$r" "'$dir/readygap' analyze -o json '$ndjson'"
    run ndjson-wc "$r" "wc -l '$ndjson'/*"
  fi
  if want nginx; then
    run nginx-readygap "$r" "'$dir/readygap' analyze -o json '$nginx'"
    run nginx-wc "$r" "wc -l '$nginx'/*"
  fi
  if want envoy; then
    run envoy-readygap "$r" "'$dir/readygap' analyze -o json '$envoy'"
    run envoy-wc "$r" "wc -l '$envoy'/*"
  fi
  if [ "$r" = 1 ]; then
    want alb && have goaccess && run alb-goaccess "$r" "zcat '$alb'/*.gz | goaccess --log-format=AWSALB -o '$ga_out/alb.json' -"
    want alb && have lnav && run alb-lnav "$r" "lnav -n -c ';SELECT count(*) FROM alb_log' '$alb'/*.gz"
    want gcp && have jq && run gcp-jq "$r" "jq -c '.[] | select(.httpRequest.status >= 500)' '$gcp'/*"
    want nginx && have goaccess && run nginx-goaccess "$r" "goaccess --log-format=COMBINED -o '$ga_out/nginx.json' '$nginx'/*"
    want envoy && have jq && run envoy-jq "$r" "jq -c 'select(.response_code >= 500)' '$envoy'/*"
  fi
done
rm -rf "$ga_out"

echo
echo "throughput, load after: $(cut -d' ' -f1-3 /proc/loadavg); rounds: $rounds (medians)"
sizes=()
want alb && sizes+=("ALB: $alb_files .log.gz objects, $((alb_bytes/1048576)) MB of text")
want gcp && sizes+=("GCP: $((gcp_bytes/1048576)) MB (gcloud's array)")
want ndjson && sizes+=("GCP: $((ndjson_bytes/1048576)) MB (NDJSON)")
want nginx && sizes+=("ingress-nginx: $((nginx_bytes/1048576)) MB")
want envoy && sizes+=("Envoy Gateway JSON: $((envoy_bytes/1048576)) MB")
(IFS=';'; echo "${sizes[*]}" | sed 's/;/; /g')
echo
printf '%-16s %8s %8s %12s %8s  %s\n' command seconds "MB/s" "peak RSS MB" "CPU s" "readygap is ... times as fast (in CPU time)"
show() {
  local key=$1 bytes=$2 base=${3:-}
  local s; s=$(secs "$key")
  [ -z "$s" ] && return
  local vs=""
  [ -n "$base" ] && vs="$(ratio "$base" "$key")x ($(ratio "$base" "$key" 5)x)"
  printf '%-16s %8s %8s %12s %8s  %s\n' "$key" "$s" "$(mbs "$bytes" "$s")" "$(peak_mb "$key")" "$(cpu "$key")" "$vs"
}
show alb-readygap "$alb_bytes"
for b in alb-zcat alb-pigz alb-inflate alb-zcat-wc alb-goaccess alb-lnav; do show "$b" "$alb_bytes" alb-readygap; done
show gcp-readygap "$gcp_bytes"
for b in gcp-wc gcp-jq; do show "$b" "$gcp_bytes" gcp-readygap; done
show ndjson-readygap "$ndjson_bytes"
show ndjson-wc "$ndjson_bytes" ndjson-readygap
show nginx-readygap "$nginx_bytes"
for b in nginx-wc nginx-goaccess; do show "$b" "$nginx_bytes" nginx-readygap; done
show envoy-readygap "$envoy_bytes"
for b in envoy-wc envoy-jq; do show "$b" "$envoy_bytes" envoy-readygap; done
if [ -n "$(secs alb-inflate)" ]; then
  echo "ALB wall time / parallel inflate ($cores goroutines): $(ratio alb-inflate alb-readygap), CPU time: $(ratio alb-inflate alb-readygap 5)"
fi
fi

# 2. Scaling: the same ALB traffic mix at several sizes. Each round runs
# every size in turn, so that a drift of the machine's speed or memory
# over the minutes the section takes falls on all of them alike.
if section scaling; then
echo
echo "scaling (ALB, 1 hour, $scale_rounds rounds, medians)"
printf '%10s %8s %8s %8s %12s %8s\n' "text MB" objects seconds "MB/s" "peak RSS MB" "CPU s"
for mb in $scale_mb; do gen "scale-$mb" "$mb" 1h alb; done
for r in $(seq "$scale_rounds"); do
  for mb in $scale_mb; do run "scale-$mb" "$r" "'$dir/readygap' analyze -o json '$dir/scale-$mb/alb'"; done
done
for mb in $scale_mb; do
  d="$dir/scale-$mb/alb"
  bytes=$(zcat "$d"/*.gz | wc -c)
  s=$(secs "scale-$mb")
  printf '%10s %8s %8s %8s %12s %8s\n' "$((bytes/1048576))" "$(ls "$d" | grep -c '\.gz$')" "$s" "$(mbs "$bytes" "$s")" "$(rss_mb "scale-$mb")" "$(cpu "scale-$mb")"
done
fi

# 3. Span: the same lines over 1 hour, 1 day, 7 days, each round running
# every span in turn.
if section span; then
echo
echo "span (ALB, ~$span_mb MB of text, $scale_rounds rounds, medians)"
printf '%10s %8s %12s %8s\n' span seconds "peak RSS MB" "CPU s"
for sp in $spans; do gen "span-$sp" "$span_mb" "$sp" alb; done
for r in $(seq "$scale_rounds"); do
  for sp in $spans; do run "span-$sp" "$r" "'$dir/readygap' analyze -o json '$dir/span-$sp/alb'"; done
done
for sp in $spans; do
  printf '%10s %8s %12s %8s\n' "$sp" "$(secs "span-$sp")" "$(rss_mb "span-$sp")" "$(cpu "span-$sp")"
done
fi
rm -f "$results"
