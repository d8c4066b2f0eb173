#!/bin/sh
# make docs: Doxygen's input filter (docs/Doxyfile). The public headers keep
# plain C and C++ comments, the way a firmware engineer reads a header; this
# presents them to Doxygen as documentation comments, without changing a
# file: a header's first comment documents the file, a comment on a line of
# its own documents what follows it, a comment after code on the same line
# documents that code (a field, an enumerator, a macro). Section rules
# ("/* ---- fixed-point decoder */") and a tag after a struct's brace
# ("typedef struct ea_add_quant_params { /* ADD */") stay plain comments.
name=$(basename "$1")
exec sed -E \
  -e "1s#^/\\*+ ?#/** @file $name #" \
  -e "1s#^// ?#/// @file $name #" \
  -e '/^[[:space:]]*\/[*\/] ?-{4,}/b' \
  -e '/\{[[:space:]]*\/\*/b' \
  -e 's#^([[:space:]]*)/\*([^*]|$)#\1/**\2#' \
  -e 's#^([[:space:]]*)//([^/]|$)#\1///\2#' \
  -e 's#^([[:space:]]*[^[:space:]*/][^"]*[^[:space:]][[:space:]]*)/\*([^*<]|$)#\1/**<\2#' \
  -e 's#^([[:space:]]*[^[:space:]*/][^"]*[^[:space:]][[:space:]]*)//([^/<]|$)#\1///<\2#' \
  "$1"
