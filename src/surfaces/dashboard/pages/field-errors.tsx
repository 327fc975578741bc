/**
 * A refused form's field errors as the API words them (`error.errors`: field -> messages), one line per field. Shared
 * by every page whose forms are checked by the API's schemas.
 */
export const FieldErrors = ({ errors }: { errors?: Record<string, string[]> }) =>
  errors ? (
    <ul class="notice warn">
      {Object.entries(errors).map(([field, messages]) => (
        <li>{`${field}: ${messages.join(" ")}`}</li>
      ))}
    </ul>
  ) : null;
