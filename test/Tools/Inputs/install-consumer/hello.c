/* Compiles the kernels of a .mlir file to PTX for sm_90 through Quire's C
 * API and prints the PTX; a failure prints the diagnostics and exits 1. */
#include <quire-c/Quire.h>

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s KERNEL.mlir\n", argv[0]);
    return 2;
  }
  FILE *f = fopen(argv[1], "rb");
  if (!f) {
    perror(argv[1]);
    return 2;
  }
  char *text = NULL;
  size_t size = 0, cap = 0, n;
  char chunk[4096];
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
    if (size + n > cap) {
      cap = 2 * (size + n);
      text = realloc(text, cap);
      if (!text)
        return 2;
    }
    for (size_t i = 0; i < n; ++i)
      text[size + i] = chunk[i];
    size += n;
  }
  fclose(f);
  printf("quire %s (C API %d)\n", quireGetVersion(), quireGetAPIVersion());
  QuireCompileOptions *options = quireCompileOptionsCreate();
  quireCompileOptionsSetSM(options, 90);
  QuireResult *result = quireCompile(text, size, argv[1], options);
  quireCompileOptionsDestroy(options);
  free(text);
  int ok = quireResultSucceeded(result);
  if (ok) {
    size_t len = 0;
    const char *ptx = quireResultGetPTX(result, &len);
    fwrite(ptx, 1, len, stdout);
  } else {
    fputs(quireResultGetDiagnostics(result), stderr);
  }
  quireResultDestroy(result);
  return ok ? 0 : 1;
}
