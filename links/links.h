#pragma once
// rensa::links (alias L): Chainer's links, one header per link, in family folders.
//   connection:    Linear Convolution2D Deconvolution2D DepthwiseConvolution2D ConvolutionND
//                  DeconvolutionND EmbedID Bias Scale Bilinear Highway MLPConvolution2D Inception
//                  InceptionBN ParameterLink (Chainer's L.Parameter) LSTM StatelessLSTM GRU StatefulGRU StatelessGRU
//                  NStepLSTM NStepBiLSTM NStepGRU NStepBiGRU NStepRNNTanh NStepRNNReLU NStepBiRNNTanh NStepBiRNNReLU
//                  InceptionBN LSTM StatelessLSTM GRU StatefulGRU StatelessGRU NStepLSTM NStepBiLSTM
//                  NStepGRU NStepBiGRU NStepRNNTanh NStepRNNReLU NStepBiRNNTanh NStepBiRNNReLU
//                  StatelessMGU StatefulMGU StatefulPeepholeLSTM StatefulZoneoutLSTM ChildSumTreeLSTM
//                  NaryTreeLSTM
//   normalization: BatchNormalization LayerNormalization GroupNormalization
//   activation:    PReLU Maxout Swish SimplifiedDropconnect
//   loss:          NegativeSampling
//   model:         Classifier; vision (Chainer's pretrained models): VGGLayers ResNetLayers GoogLeNet;
//                  vision (examples' networks): CifarVGG16 ResNet50 ImageNetGoogLeNet Alex NIN
// Link, Chain, ChainList, Sequential and Parameter: links/link.h, links/chain.h,
// links/parameter.h; initializers: links/initializers.h and links/initializers/sampling.h.

#include "links/activation/maxout.h"                               // IWYU pragma: export
#include "links/activation/prelu.h"                                // IWYU pragma: export
#include "links/activation/simplified_dropconnect.h"               // IWYU pragma: export
#include "links/activation/swish.h"                                // IWYU pragma: export
#include "links/chain.h"                                           // IWYU pragma: export
#include "links/connection/bias.h"                                 // IWYU pragma: export
#include "links/connection/bilinear.h"                             // IWYU pragma: export
#include "links/connection/convolution_2d.h"                       // IWYU pragma: export
#include "links/connection/convolution_nd.h"                       // IWYU pragma: export
#include "links/connection/convolution_variants.h"                 // IWYU pragma: export
#include "links/connection/deconvolution_2d.h"                     // IWYU pragma: export
#include "links/connection/deconvolution_nd.h"                     // IWYU pragma: export
#include "links/connection/deformable_convolution_2d.h"            // IWYU pragma: export
#include "links/connection/depthwise_convolution_2d.h"             // IWYU pragma: export
#include "links/connection/embed_id.h"                             // IWYU pragma: export
#include "links/connection/gru.h"                                  // IWYU pragma: export
#include "links/connection/highway.h"                              // IWYU pragma: export
#include "links/connection/inception.h"                            // IWYU pragma: export
#include "links/connection/inception_bn.h"                         // IWYU pragma: export
#include "links/connection/linear.h"                               // IWYU pragma: export
#include "links/connection/local_convolution_2d.h"                 // IWYU pragma: export
#include "links/connection/lstm.h"                                 // IWYU pragma: export
#include "links/connection/mgu.h"                                  // IWYU pragma: export
#include "links/connection/mlp_convolution_2d.h"                   // IWYU pragma: export
#include "links/connection/n_step_rnn.h"                           // IWYU pragma: export
#include "links/connection/parameter_link.h"                       // IWYU pragma: export
#include "links/connection/peephole.h"                             // IWYU pragma: export
#include "links/connection/scale.h"                                // IWYU pragma: export
#include "links/connection/tree_lstm.h"                            // IWYU pragma: export
#include "links/connection/zoneout_lstm.h"                         // IWYU pragma: export
#include "links/initializers.h"                                    // IWYU pragma: export
#include "links/initializers/sampling.h"                           // IWYU pragma: export
#include "links/link.h"                                            // IWYU pragma: export
#include "links/loss/black_out.h"                                  // IWYU pragma: export
#include "links/loss/crf1d.h"                                      // IWYU pragma: export
#include "links/loss/hierarchical_softmax.h"                       // IWYU pragma: export
#include "links/loss/negative_sampling.h"                          // IWYU pragma: export
#include "links/model/classifier.h"                                // IWYU pragma: export
#include "links/model/vision/alexnet.h"                            // IWYU pragma: export
#include "links/model/vision/cifar_vgg16.h"                        // IWYU pragma: export
#include "links/model/vision/googlenet.h"                          // IWYU pragma: export
#include "links/model/vision/imagenet_googlenet.h"                 // IWYU pragma: export
#include "links/model/vision/nin.h"                                // IWYU pragma: export
#include "links/model/vision/resnet.h"                             // IWYU pragma: export
#include "links/model/vision/resnet50.h"                           // IWYU pragma: export
#include "links/model/vision/vgg.h"                                // IWYU pragma: export
#include "links/normalization/batch_normalization.h"               // IWYU pragma: export
#include "links/normalization/batch_renormalization.h"             // IWYU pragma: export
#include "links/normalization/decorrelated_batch_normalization.h"  // IWYU pragma: export
#include "links/normalization/group_normalization.h"               // IWYU pragma: export
#include "links/normalization/layer_normalization.h"               // IWYU pragma: export
#include "links/parameter.h"                                       // IWYU pragma: export
