/**
 * TensorFlow.js as the model code uses it: the @tensorflow/tfjs package, which registers every
 * op's gradient and the CPU and WebGL backends. The WASM and WebGPU backends are loaded by
 * whoever picks one (the worker, the CLI, the tests), so a page that never trains never loads
 * TensorFlow.js at all.
 */
export * from '@tensorflow/tfjs';
