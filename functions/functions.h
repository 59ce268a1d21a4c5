#pragma once
// rensa::functions (alias F): Chainer's differentiable functions on Variables, one
// header per family. Each function is a public free function plus a private
// FunctionNode (docs/style.md, rule 6) with Chainer's names, arguments, defaults and semantics.
//
// The families and what they hold (kept in step with the headers; see issue notes for
// anything left out):
//   activation:    relu leaky_relu elu selu clipped_relu sigmoid hard_sigmoid tanh softplus
//                  swish gelu softmax log_softmax prelu maxout lstm rrelu slstm tree_lstm
//   array:         reshape transpose swapaxes broadcast_to expand_dims squeeze flatten concat
//                  stack hstack vstack split_axis separate get_item select_item where cast copy
//                  pad pad_sequence transpose_sequence tile repeat flip resize_images sum_to
//                  broadcast
//   math:          operators (+ - * / pow neg), sum mean max min argmax argmin prod exp log
//                  log1p log2 log10 sqrt rsqrt square absolute sin cos tan arctan sinh cosh erf
//                  clip maximum minimum logsumexp cumsum matmul batch_matmul tensordot einsum
//                  squared_difference identity bias scale linear_interpolate
//   connection:    linear convolution_2d deconvolution_2d depthwise_convolution_2d
//                  convolution_nd deconvolution_nd embed_id bilinear n_step_lstm n_step_bilstm
//                  n_step_gru n_step_rnn
//   pooling:       max_pooling_2d average_pooling_2d max_pooling_nd average_pooling_nd
//                  unpooling_2d upsampling_2d
//   normalization: batch_normalization fixed_batch_normalization layer_normalization
//                  group_normalization local_response_normalization normalize
//   loss:          softmax_cross_entropy sigmoid_cross_entropy mean_squared_error
//                  mean_absolute_error huber_loss hinge gaussian_kl_divergence bernoulli_nll
//                  gaussian_nll contrastive triplet negative_sampling
//                  connectionist_temporal_classification
//   noise:         dropout gaussian gumbel_softmax zoneout simplified_dropconnect
//   evaluation:    accuracy binary_accuracy precision recall f1_score
//   util:          forget

#include "functions/activation.h"     // IWYU pragma: export
#include "functions/array.h"          // IWYU pragma: export
#include "functions/connection.h"     // IWYU pragma: export
#include "functions/evaluation.h"     // IWYU pragma: export
#include "functions/loss.h"           // IWYU pragma: export
#include "functions/math.h"           // IWYU pragma: export
#include "functions/noise.h"          // IWYU pragma: export
#include "functions/normalization.h"  // IWYU pragma: export
#include "functions/pooling.h"        // IWYU pragma: export
#include "functions/util.h"           // IWYU pragma: export
