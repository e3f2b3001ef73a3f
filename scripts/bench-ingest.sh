#!/usr/bin/env bash
# Measures readygap's ingest throughput on ~1 GB of generated realistic input
# (gzip'd ALB access logs as S3 objects, a gcloud JSON export, ingress-nginx
# controller output) beside baselines measured in the same run: zcat and
# pigz -dc for the ALB objects, wc -l for the text inputs. Prints medians of
# several rounds, ratios and peak RSS.
#
#   scripts/bench-ingest.sh            # 1 GB, 3 rounds
#   SIZE_MB=256 ROUNDS=5 scripts/bench-ingest.sh
#   BENCH_DIR=/tmp/rg-bench scripts/bench-ingest.sh   # keep and reuse the data
set -euo pipefail
cd "$(dirname "$0")/.."

size_mb=${SIZE_MB:-1024}
rounds=${ROUNDS:-3}
dir=${BENCH_DIR:-$(mktemp -d)}
mkdir -p "$dir"

if ! command -v pigz >/dev/null; then
  if [ "$(id -u)" = 0 ]; then
    (apt-get install -y -qq pigz >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq pigz >/dev/null; }) || true
  fi
fi
if [ ! -x /usr/bin/time ]; then
  echo "GNU time (/usr/bin/time) is needed for peak RSS: apt-get install time" >&2
  exit 1
fi

go build -o "$dir/readygap" ./cmd/readygap
if [ ! -f "$dir/data/.done-$size_mb" ]; then
  rm -rf "$dir/data"
  echo "generating ~${size_mb} MB of input in $dir/data ..." >&2
  go run ./scripts/gendata -out "$dir/data" -size-mb "$size_mb"
  touch "$dir/data/.done-$size_mb"
fi

alb_bytes=$(zcat "$dir"/data/alb/*.gz | wc -c)
gcp_bytes=$(cat "$dir"/data/gcp/* | wc -c)
nginx_bytes=$(cat "$dir"/data/nginx/* | wc -c)
alb_files=$(ls "$dir"/data/alb | wc -l)

# run LABEL CMD... : time one command, appending "label seconds maxrss_kb" to the results.
results=$(mktemp)
run() {
  local label=$1; shift
  local out
  out=$(mktemp)
  /usr/bin/time -f '%e %M' -o "$out" bash -c "$*" >/dev/null
  echo "$label $(cat "$out")" >> "$results"
  rm -f "$out"
}

for r in $(seq "$rounds"); do
  echo "round $r/$rounds" >&2
  run alb-readygap "'$dir/readygap' analyze -o json '$dir/data/alb'"
  run alb-zcat "zcat '$dir'/data/alb/*.gz"
  command -v pigz >/dev/null && run alb-pigz "pigz -dc '$dir'/data/alb/*.gz"
  run gcp-readygap "'$dir/readygap' analyze -o json '$dir/data/gcp'"
  run gcp-wc "wc -l '$dir'/data/gcp/*"
  run nginx-readygap "'$dir/readygap' analyze -o json '$dir/data/nginx'"
  run nginx-wc "wc -l '$dir'/data/nginx/*"
done

median() { awk -v l="$1" '$1==l {print $2}' "$results" | sort -n | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]}'; }
peak() { awk -v l="$1" '$1==l {print $3}' "$results" | sort -n | tail -1; }
mbs() { awk -v b="$1" -v s="$2" 'BEGIN { if (s>0) printf "%.0f", b/1048576/s; else print "inf" }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a>0) printf "%.2fx", b/a; else print "-" }'; }

echo
echo "machine: $(nproc) cores, $(go env GOVERSION); rounds: $rounds (medians)"
echo "ALB: $alb_files .log.gz objects, $((alb_bytes/1048576)) MB uncompressed; GCP: $((gcp_bytes/1048576)) MB; ingress-nginx: $((nginx_bytes/1048576)) MB"
printf '%-16s %8s %9s %12s %s\n' command seconds "MB/s" "peak RSS MB" "vs baseline"
show() {
  local label=$1 bytes=$2 base=${3:-}
  local s; s=$(median "$label")
  [ -z "$s" ] && return
  local vs=""
  if [ -n "$base" ]; then vs="$(ratio "$s" "$(median "$base")") the speed of $base"; fi
  printf '%-16s %8s %9s %12s %s\n' "$label" "$s" "$(mbs "$bytes" "$s")" "$(( $(peak "$label") / 1024 ))" "$vs"
}
show alb-zcat "$alb_bytes"
show alb-pigz "$alb_bytes"
show alb-readygap "$alb_bytes" alb-zcat
show gcp-wc "$gcp_bytes"
show gcp-readygap "$gcp_bytes" gcp-wc
show nginx-wc "$nginx_bytes"
show nginx-readygap "$nginx_bytes" nginx-wc
rm -f "$results"
