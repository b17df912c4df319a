// zlib for `chronoscope export --gzip`. `deflateInit2` is a macro, which Swift does not import.
#ifndef CZLIB_SHIM_H
#define CZLIB_SHIM_H

#include <zlib.h>

// A deflate stream that writes the gzip format (window bits 15, plus 16 for the gzip wrapper).
static inline int czlib_deflate_init_gzip(z_stream *stream, int level) {
  return deflateInit2(stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}

#endif
