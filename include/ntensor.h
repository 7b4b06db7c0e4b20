/**
 * @file
 * ntensor.h — the public C API of ntensor, a tensor library with named dimensions: this
 * umbrella header includes every part (the headers of include/ntensor/).
 *
 * Conventions that hold for every function below:
 *  - Fallible functions return nt_status. NT_OK is 0; on any other value nothing was
 *    allocated or changed, and nt_last_error() holds a message (thread-local).
 *  - Results come back through out-parameters; a returned nt_tensor* is a new reference
 *    that the caller releases with nt_tensor_release().
 *  - Sizes, strides, indices and counts are int64_t. A dim argument may be negative
 *    (counted from the end), as in PyTorch.
 *  - Names are interned symbols (nt_name); 0 (NT_NAME_NONE) is the unnamed wildcard.
 *    A `names` array argument has one entry per dim, or is NULL for "all unnamed".
 *  - Views share storage with their base; an in-place op bumps the storage version.
 */
#ifndef NTENSOR_H
#define NTENSOR_H

#include "ntensor/autograd.h"
#include "ntensor/call.h"
#include "ntensor/convert.h"
#include "ntensor/core.h"
#include "ntensor/dims.h"
#include "ntensor/factory.h"
#include "ntensor/generator.h"
#include "ntensor/index.h"
#include "ntensor/io.h"
#include "ntensor/linalg.h"
#include "ntensor/memory.h"
#include "ntensor/names.h"
#include "ntensor/nn.h"
#include "ntensor/optim.h"
#include "ntensor/pointwise.h"
#include "ntensor/print.h"
#include "ntensor/random.h"
#include "ntensor/reduce.h"
#include "ntensor/version.h"
#include "ntensor/views.h"

#endif /**< NTENSOR_H */
