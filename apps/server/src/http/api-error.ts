/** An error a client caused or must know about: serialized as {error: {code, message, path?}}. */
export class ApiError extends Error {
  override readonly name = 'ApiError';

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly path?: string,
  ) {
    super(message);
  }
}

export interface ErrorBody {
  readonly error: { readonly code: string; readonly message: string; readonly path?: string };
}

export function errorBody(error: ApiError): ErrorBody {
  return {
    error: {
      code: error.code,
      message: error.message,
      ...(error.path !== undefined ? { path: error.path } : {}),
    },
  };
}

export const badRequest = (message: string, path?: string): ApiError =>
  new ApiError(400, 'bad-request', message, path);
export const notFound = (message: string): ApiError => new ApiError(404, 'not-found', message);
export const conflict = (message: string): ApiError => new ApiError(409, 'conflict', message);
