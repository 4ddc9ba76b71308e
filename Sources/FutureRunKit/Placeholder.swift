enum FutureRunKitPlaceholder {}
