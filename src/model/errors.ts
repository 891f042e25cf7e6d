// One kind of error for everything the user gave ncclx that it cannot use: a
// flag, a value, a file. The CLI prints its message on one line and exits 2;
// any other error is a bug in ncclx.

export class UserError extends Error {
  override name = 'UserError';
}
