import FutureCore
let f = Future { 42 }
print(f.value)
