print("futurerun: not built yet")
