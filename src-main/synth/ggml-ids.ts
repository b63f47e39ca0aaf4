// ggml type ids the generators write (ggml-types.ts has the full table).
export const GGML_F32 = 0;
export const GGML_F16 = 1;
export const GGML_Q4_0 = 2;
export const GGML_Q8_0 = 8;
export const GGML_Q4_K = 12;
