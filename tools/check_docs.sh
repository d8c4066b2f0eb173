#!/bin/sh
# make docs: builds the API reference (HTML, docs/Doxyfile) into $1 and fails
# on any Doxygen warning: an undocumented public function, struct, field,
# enumerator, macro or constexpr, or a broken doc comment. The fields of the
# opaque structs (plans, decoders, caches, cross-attentions, the weight
# file's view: "treat the rest as opaque", their fields change in any
# release) are not API and need no comment of their own; their struct does.
set -u
out=${1:-build/docs}
mkdir -p "$out"
DOCS_OUT=$out doxygen docs/Doxyfile || exit 1
opaque='ea_(attention|attention_quant|mha|mha_quant|self_attention|self_attention_quant)_plan'
opaque="$opaque|ea_(decoder|decoder_quant|cross|cross_quant|kv_cache|weight_file|quant_core)"
warnings=$(grep -Ev "Member [^ ]+ \\(variable\\) of struct ($opaque) is not documented" \
  "$out/warnings.log")
if [ -n "$warnings" ]; then
  echo "$warnings" | sed "s#^$(pwd)/##"
  echo "docs: $(echo "$warnings" | wc -l) warnings (every public symbol needs its comment)"
  exit 1
fi
echo "docs: every public symbol documented; HTML in $out/html/index.html"
