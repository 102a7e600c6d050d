import { FeaturePending } from '../../components/FeaturePending.tsx';

export default function UserListPage() {
  return <FeaturePending titleKey="pages.users" />;
}
