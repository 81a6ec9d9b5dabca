"""Prints a function that casts each of its N f32 arguments to bf16 and
returns the copies: amp-fuse-cast-runs.mlir's run longer than a launch
takes (N is the first argument)."""
import sys

n = int(sys.argv[1])
args = ", ".join(f"%a{i}: tensor<4xf32>" for i in range(n))
results = ", ".join("tensor<4xbf16>" for _ in range(n))
print(f"func.func @many({args}) -> ({results}) {{")
for i in range(n):
    print(f"  %c{i} = amp.cast %a{i} : tensor<4xf32> to tensor<4xbf16>")
print(f"  return {', '.join(f'%c{i}' for i in range(n))} : {results}")
print("}")
