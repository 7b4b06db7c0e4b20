"""The spec's named-tensor examples, run with `import ntensor as torch`.

Each section follows named_tensor_api.md or tutorial.md; the examples that need arithmetic,
reductions, matrix products or autograd join as those features land.
"""
import ntensor as torch


def catch_error(fn):
    try:
        fn()
        assert False, "expected an error"
    except RuntimeError as err:
        err = str(err)
        if len(err) > 180:
            err = err[:180] + "..."
        print(err)


print("# Creating named tensors")
print(torch.zeros(2, 3, names=('N', 'C')))

imgs = torch.randn(1, 2, 2, 3, names=('N', 'C', 'H', 'W'))
print(imgs.names)
renamed_imgs = imgs.rename(H='height', W='width')
print(renamed_imgs.names)
imgs = torch.randn(1, 2, 2, 3, names=(None, 'C', 'H', 'W'))
print(imgs.names)

print("\n# Renaming (tutorial)")
imgs = torch.randn(1, 2, 2, 3, names=('N', 'C', 'H', 'W'))
imgs.names = ['batch', 'channel', 'width', 'height']
print(imgs.names)
imgs = imgs.rename(channel='C', width='W', height='H')
print(imgs.names)
imgs = imgs.rename(None)
print(imgs.names)
unnamed = torch.randn(2, 1, 3)
print(unnamed.names)
imgs = torch.randn(3, 1, 1, 2, names=('N', None, None, None))
print(imgs.names)

print("\n# refine_names")
imgs = torch.randn(3, 1, 1, 2)
named_imgs = imgs.refine_names('N', 'C', 'H', 'W')
print(named_imgs.names)
named_imgs = imgs.refine_names(..., 'H', 'W')
print(named_imgs.names)
named_imgs = imgs.refine_names('N', 'C', 'H', 'W')
catch_error(lambda: named_imgs.refine_names('N', 'C', 'H', 'width'))
tensor = torch.randn(2, 3, 5, 7, 11).refine_names('A', ..., 'B', 'C')
print(tensor.names)

print("\n# Accessors")
img0 = named_imgs.select('N', 0)
print(img0.names)
print(named_imgs.size('W'), named_imgs.stride('C'))

print("\n# rename (API reference)")
imgs = torch.rand(2, 3, 5, 7, names=('N', 'C', 'H', 'W'))
print(imgs.rename(N='batch', C='channels').names)
print(imgs.rename(None).names)
print(imgs.rename('batch', 'channel', 'height', 'width').names)

print("\n# align_to")
tensor = torch.randn(2, 2, 2, 2, 2, 2)
named_tensor = tensor.refine_names('A', 'B', 'C', 'D', 'E', 'F')
print(tensor.permute(5, 4, 0, 1, 2, 3).shape)
print(named_tensor.align_to('F', 'E', ...).names)
scale = torch.randn(3, names=('C',))
imgs = torch.rand(3, 3, 3, 3, names=('N', 'H', 'W', 'C'))
print(scale.align_as(imgs).names, scale.align_as(imgs).shape)

print("\n# flatten and unflatten")
imgs = torch.randn(32, 3, 128, 128)
named_imgs = imgs.refine_names('N', 'C', 'H', 'W')
flat_imgs = imgs.view(32, -1)
named_flat_imgs = named_imgs.flatten(['C', 'H', 'W'], 'features')
print(named_flat_imgs.names, named_flat_imgs.shape)
unflattened_named_imgs = named_flat_imgs.unflatten('features', [('C', 3), ('H', 128), ('W', 128)])
print(unflattened_named_imgs.names, unflattened_named_imgs.shape)
print(torch.randn(3, 4, 1).unflatten(1, (2, 2)).shape)
print(torch.randn(3, 4, 1).unflatten(1, (-1, 2)).shape)
torch.manual_seed(0)
print(torch.randn(2, 4, names=('A', 'B')).unflatten('B', (('B1', 2), ('B2', 2))))
print(torch.randn(2, names=('A',)).unflatten('A', (('B1', -1), ('B2', 1))))

print("\n# Printing")
print(torch.arange(6).reshape(2, 3).refine_names('N', 'C'))
print(torch.tensor([[1.5, -2.0], [3.25, 1e-5]], names=('N', None)))
print(torch.ones(2, 2, dtype=torch.int32, names=('N', 'C')))
