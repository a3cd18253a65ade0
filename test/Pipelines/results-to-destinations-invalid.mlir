// RUN: posenc-opt %s --split-input-file --verify-diagnostics --posenc-results-to-destinations=function=f

// The results must be statically shaped tensors (the caller sizes the
// destination before the call).
// expected-error @+1 {{posenc-results-to-destinations: result #1 has type 'tensor<?x8xf32>', expected a statically shaped ranked tensor}}
func.func @f(%x: tensor<4x8xf32>, %y: tensor<?x8xf32>) -> (tensor<4x8xf32>, tensor<?x8xf32>) {
  return %x, %y : tensor<4x8xf32>, tensor<?x8xf32>
}

// -----

// expected-error @+1 {{posenc-results-to-destinations: result #0 has type 'f32', expected a statically shaped ranked tensor}}
func.func @f(%x: f32) -> f32 {
  return %x : f32
}

// -----

// expected-error @+1 {{posenc-results-to-destinations: @f is used inside the module; its call sites would keep the old signature}}
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = func.call @f(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// expected-error @+1 {{posenc-results-to-destinations: no function with a body named 'f'}}
module {
  func.func private @f(%x: tensor<4xf32>) -> tensor<4xf32>
}
