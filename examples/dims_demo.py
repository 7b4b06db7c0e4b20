"""The first-class-dims spec's examples (first_class_dims.md) with ntensor.dim, on every Python
version: run with PYTHONPATH=build/python /usr/bin/python3 examples/dims_demo.py"""
import ntensor as torch
from ntensor.dim import dims


def mm(A, B):
    i, j, k = dims()
    r = (A[i, k] * B[k, j]).sum(k)  # one GEMM: the product is not materialised
    return r.order(i, j)


def bmm(A, B):
    i = dims()
    return mm(A[i], B[i]).order(i)


def pixel_shuffle(img, upscale_factor=2):
    h2, w2, c, b, h, w = dims(6)
    h2.size = w2.size = upscale_factor
    return img[b, (c, h2, w2), h, w].order(b, c, (h, h2), (w, w2))


def embedding_bag(input, embedding_weights):
    batch, sequence, features = dims(3)
    r = embedding_weights[input[batch, sequence], features].sum(sequence)
    return r.order(batch, features)


def triu(A):
    i, j = dims()
    a = A[i, j]
    return torch.where(i <= j, a, 0).order(i, j)


def main():
    A, B = torch.rand(3, 4), torch.rand(4, 5)
    print("mm matches A @ B:", bool(((mm(A, B) - A @ B).abs() < 1e-5).all()))
    A3, B3 = torch.rand(2, 3, 4), torch.rand(2, 4, 5)
    print("bmm matches torch.bmm:", bool(((bmm(A3, B3) - torch.bmm(A3, B3)).abs() < 1e-5).all()))
    print("pixel_shuffle shape:", tuple(pixel_shuffle(torch.rand(1, 8, 3, 3)).shape))
    W = torch.rand(5, 2)
    print("embedding_bag:", embedding_bag(torch.tensor([[1, 0, 4, 3]]), W).shape)
    i, j = dims(sizes=[4, 4])
    print("i <= j:")
    print(i <= j)
    print("triu:")
    print(triu(torch.ones(3, 4)))
    batch = dims(1)
    x = torch.rand(2, 3, names=("N", "C"))
    print("names and dims together:", x[batch].dims, x[batch].names)


if __name__ == "__main__":
    main()
