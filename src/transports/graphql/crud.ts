import { Arg, ClassType, ID, Resolver } from 'type-graphql';
import { SignedInQuery, SignedInMutation } from './auth-checker';
import type { DeleteResultDto } from '../../presenters/dto.generated';
import type { Services } from '../../services';
import type { CrudCalls, WriteCalls } from '../crud';
import { Caller, ValidArg } from './params';
import { DeleteResultType } from './types/common.type';

/** One kind of thing written by id (a provider, and the kinds below). */
export interface WriteKind<View, Dto, Create extends object, Update extends object> {
  /** `Group`: the mutations `createGroup`, `updateGroup`, `deleteGroup` (and the query `group(id)`). */
  name: string;
  type: ClassType;
  /** The id argument's GraphQL type: `ID` unless told (providers take a `String`). */
  idType?: typeof ID | typeof String;
  create: ClassType<Create>;
  update: ClassType<Update>;
  calls: (services: Services) => WriteCalls<View, Create, Update>;
  present: (view: View) => Dto;
  /** Each operation's description: its REST route and who may call it. */
  describe: { create: string; update: string; delete: string };
}

/** One kind of thing read and written by id (a group, a department, a project, a user). */
export interface CrudKind<View, Dto, Create extends object, Update extends object> extends WriteKind<View, Dto, Create, Update> {
  calls: (services: Services) => CrudCalls<View, Create, Update>;
  describe: { get: string; create: string; update: string; delete: string };
}

/**
 * A kind's create, update and delete, each one service call presented the way REST presents it. A
 * kind's resolver extends the class this returns and adds its reads and its own operations.
 */
export function writeResolver<View, Dto, Create extends object, Update extends object>(kind: WriteKind<View, Dto, Create, Update>) {
  const idType = () => kind.idType ?? ID;

  @Resolver()
  abstract class WriteResolver {
    @SignedInMutation(() => kind.type, { name: `create${kind.name}`, description: kind.describe.create })
    async create(@ValidArg('input', kind.create) input: Create, @Caller() { actor, services }: Caller): Promise<Dto> {
      return kind.present(await kind.calls(services).create(actor, input));
    }

    @SignedInMutation(() => kind.type, { name: `update${kind.name}`, description: kind.describe.update })
    async update(
      @Arg('id', idType) id: string,
      @ValidArg('input', kind.update) input: Update,
      @Caller() { actor, services }: Caller,
    ): Promise<Dto> {
      return kind.present(await kind.calls(services).update(actor, id, input));
    }

    @SignedInMutation(() => DeleteResultType, { name: `delete${kind.name}`, description: kind.describe.delete })
    async delete(@Arg('id', idType) id: string, @Caller() { actor, services }: Caller): Promise<DeleteResultDto> {
      return { success: true, ...(await kind.calls(services).delete(actor, id)) };
    }
  }
  return WriteResolver;
}

/** A kind's query `<name>(id)` and its writes (writeResolver). */
export function crudResolver<View, Dto, Create extends object, Update extends object>(kind: CrudKind<View, Dto, Create, Update>) {
  const field = kind.name[0].toLowerCase() + kind.name.slice(1);

  @Resolver()
  abstract class CrudResolver extends writeResolver(kind) {
    @SignedInQuery(() => kind.type, { name: field, description: kind.describe.get })
    async get(@Arg('id', () => ID) id: string, @Caller() { actor, services }: Caller): Promise<Dto> {
      return kind.present(await kind.calls(services).get(actor, id));
    }
  }
  return CrudResolver;
}
